package io.roboco.sandbox.it;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import io.roboco.sandbox.server.SecretSafeLogging;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Everything this JVM logs (every logger at DEBUG, with stack traces) and prints (stdout, stderr) while it is open,
 * for tests that scan it for secrets. Closing it restores the loggers and the streams. The libraries that log whole
 * requests at DEBUG ({@link SecretSafeLogging#LEAKY}) stay at INFO: a server refuses to start with them at DEBUG, so
 * what is scanned is everything a running server can log.
 */
public final class LogCapture implements AutoCloseable {
    private final StringBuffer logged = new StringBuffer();
    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final Level rootLevel = root.getLevel();
    private final Map<Logger, Level> leaky = new LinkedHashMap<>();
    private final PrintStream out = System.out;
    private final PrintStream err = System.err;
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
            logged.append(e.getLoggerName())
                    .append(' ')
                    .append(e.getFormattedMessage())
                    .append('\n');
            if (e.getThrowableProxy() != null) {
                logged.append(ThrowableProxyUtil.asString(e.getThrowableProxy()))
                        .append('\n');
            }
        }
    };

    public LogCapture() {
        root.setLevel(Level.DEBUG);
        for (String name : SecretSafeLogging.LEAKY) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            if (logger.isDebugEnabled()) {
                leaky.put(logger, logger.getLevel());
                logger.setLevel(Level.INFO);
            }
        }
        appender.setContext(root.getLoggerContext());
        appender.start();
        root.addAppender(appender);
        System.setOut(new PrintStream(new Tee(out, console), true));
        System.setErr(new PrintStream(new Tee(err, console), true));
    }

    /** Every log line so far. */
    public String logged() {
        return logged.toString();
    }

    /** Everything printed so far. */
    public String printed() {
        synchronized (console) {
            return console.toString();
        }
    }

    @Override
    public void close() {
        System.setOut(out);
        System.setErr(err);
        root.detachAppender(appender);
        leaky.forEach(Logger::setLevel);
        root.setLevel(rootLevel);
    }

    /** Writes to the real stream and to a capture. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final ByteArrayOutputStream b;

        Tee(OutputStream a, ByteArrayOutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            synchronized (b) {
                b.write(c);
            }
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            synchronized (b) {
                b.write(buf, off, len);
            }
        }
    }
}
