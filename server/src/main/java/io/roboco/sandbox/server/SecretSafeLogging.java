package io.roboco.sandbox.server;

import io.roboco.sandbox.server.config.ConfigException;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Libraries that log whole requests at DEBUG, and what those requests carry: docker-java and its HTTP client log
 * every exec request with its environment (a clone seed's {@code PGPASSWORD}, the admin credential an activation
 * runs with) and every wire byte; the MCP SDK quotes whole messages (tool results carry credentials); Jetty's
 * request parser and its channel log every request header, a caller's {@code Authorization: Bearer} token and the
 * dashboard's session cookie included. Our own code
 * never logs a secret at any level, but these would. A server whose logging turns any of them to DEBUG would write
 * secrets to its log, so it does not start, and says which logger and what to set.
 */
public final class SecretSafeLogging {
    /** Logger names whose DEBUG output carries secrets. */
    public static final List<String> LEAKY = List.of(
            "com.github.dockerjava",
            "org.apache.hc.client5.http.wire",
            "org.apache.hc.client5.http.headers",
            "io.modelcontextprotocol",
            "org.eclipse.jetty.http.HttpParser",
            "org.eclipse.jetty.server.HttpChannel");

    private SecretSafeLogging() {}

    /** @throws ConfigException naming every logger of {@link #LEAKY} that is at DEBUG or finer */
    static void check() {
        List<String> debugging = LEAKY.stream()
                .filter(name -> LoggerFactory.getLogger(name).isDebugEnabled())
                .toList();
        if (!debugging.isEmpty()) {
            throw new ConfigException("logging would write secrets: " + String.join(", ", debugging)
                    + (debugging.size() == 1 ? " is" : " are")
                    + " at DEBUG, where " + (debugging.size() == 1 ? "it logs" : "they log")
                    + " whole requests with sandbox credentials"
                    + " (exec environments, MCP tool results); set " + (debugging.size() == 1 ? "it" : "them")
                    + " to INFO or above in the logging configuration (the shipped logback.xml has WARN)");
        }
    }
}
