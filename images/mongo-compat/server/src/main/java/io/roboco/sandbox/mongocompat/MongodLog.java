package io.roboco.sandbox.mongocompat;

import java.io.PrintStream;
import java.time.Instant;

/**
 * The few log lines the stand-in prints, shaped like mongod's structured log so log-based wait strategies
 * and people reading {@code docker logs} see what they know. Never a password, a proof or a command body.
 */
final class MongodLog {
    private static final PrintStream OUT = System.out;

    private MongodLog() {
    }

    static void waitingForConnections(String host, int port) {
        line("I", "NETWORK", 23016, "listener", "Waiting for connections",
                "{\"host\":" + quote(host) + ",\"port\":" + port + ",\"ssl\":\"off\",\"server\":\"mongo-java-server\"}");
    }

    static void accessControlDisabled() {
        line("W", "CONTROL", 22120, "initandlisten",
                "Access control is not enabled for the database. Read and write access to data and configuration is unrestricted",
                "{}");
    }

    static void authenticationFailed(String mechanism, String user, String db, String remote, String error) {
        line("I", "ACCESS", 5286307, "conn", "Failed to authenticate",
                "{\"client\":" + quote(remote) + ",\"mechanism\":" + quote(mechanism) + ",\"user\":" + quote(user)
                        + ",\"db\":" + quote(db) + ",\"error\":" + quote(error) + "}");
    }

    private static void line(String severity, String component, int id, String ctx, String msg, String attr) {
        OUT.printf("{\"t\":{\"$date\":\"%s\"},\"s\":\"%s\",\"c\":\"%s\",\"id\":%d,\"ctx\":\"%s\",\"msg\":%s,\"attr\":%s}%n",
                Instant.now(), severity, component, id, ctx, quote(msg), attr);
        OUT.flush();
    }

    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
