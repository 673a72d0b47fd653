package io.roboco.sandbox.it;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.roboco.sandbox.manager.SandboxManager;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * When the server decided each grant, timed from inside the agent's lock: the sandbox manager logs
 * (DEBUG) "agent {} granted {} ({})" just before it returns a ready set, while it still holds the
 * agent's lock, and this appender takes {@code System.nanoTime()} on that same thread. (The audit
 * record is appended later, after the lock is released, so a release can slip in before it: its
 * timestamp is not the decision.) While open, the manager's DEBUG lines go here only, not to the console.
 */
public final class GrantDecisions implements AutoCloseable {
    /** One decided grant: the agent, the names of the containers handed out, and when (System.nanoTime). */
    public record Decision(String agent, List<String> containers, long nanos) {}

    private static final String FORMAT = "agent {} granted {} ({})";
    private final List<Decision> decisions = new CopyOnWriteArrayList<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(SandboxManager.class);
    private final Level level;
    private final boolean additive;
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
            Object[] args = e.getArgumentArray();
            if (FORMAT.equals(e.getMessage())
                    && args != null
                    && args.length == 3
                    && args[1] instanceof Collection<?> names) {
                decisions.add(new Decision(
                        String.valueOf(args[0]),
                        names.stream().map(String::valueOf).toList(),
                        System.nanoTime()));
            }
        }
    };

    private GrantDecisions() {
        level = logger.getLevel();
        additive = logger.isAdditive();
        appender.setContext(logger.getLoggerContext());
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);
        logger.setLevel(Level.DEBUG);
    }

    /** Starts recording the decisions of every server in this JVM. */
    public static GrantDecisions record() {
        return new GrantDecisions();
    }

    /** The last decision for {@code agent} that handed out exactly these containers (any order); null when there is none. */
    public Decision of(String agent, Collection<String> containerNames) {
        List<String> wanted = containerNames.stream().sorted().toList();
        Decision found = null;
        for (Decision d : decisions) {
            if (d.agent().equals(agent)
                    && Objects.equals(d.containers().stream().sorted().toList(), wanted)) {
                found = d;
            }
        }
        return found;
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(level);
        logger.setAdditive(additive);
        appender.stop();
    }
}
