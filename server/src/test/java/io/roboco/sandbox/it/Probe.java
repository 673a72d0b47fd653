package io.roboco.sandbox.it;

import io.roboco.sandbox.testkit.Redact;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Map;
import java.util.Properties;

/** Uses granted credentials the way an agent would; throws when they do not work. Only 127.0.0.1. */
public final class Probe {
    private Probe() {
    }

    /** Logs in with the env dict of one granted service and runs one command. */
    public static void use(String service, Map<String, String> env) throws Exception {
        switch (service) {
            case "postgres":
                postgres(env.get("ROBOCO_TEST_DB_HOST"), env.get("ROBOCO_TEST_DB_PORT"), env.get("ROBOCO_TEST_DB_NAME"),
                        env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
                return;
            case "redis":
                redis(env.get("ROBOCO_TEST_REDIS_HOST"), env.get("ROBOCO_TEST_REDIS_PORT"), env.get("ROBOCO_TEST_REDIS_USER"),
                        env.get("ROBOCO_TEST_REDIS_PASSWORD"));
                return;
            default:
                throw new IllegalArgumentException("no probe for " + service);
        }
    }

    /** True when the credentials work; the failure (class: message) otherwise, passwords redacted. */
    public static String tryUse(String service, Map<String, String> env) {
        try {
            use(service, env);
            return null;
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + Redact.passwords(String.valueOf(e.getMessage()));
        }
    }

    public static void postgres(String host, String port, String db, String user, String password) throws Exception {
        requireLoopback(host);
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "3");
        p.setProperty("socketTimeout", "5");
        p.setProperty("loginTimeout", "5");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + db, p);
             ResultSet rs = c.createStatement().executeQuery("select 41 + 1")) {
            rs.next();
            if (rs.getInt(1) != 42) {
                throw new IllegalStateException("postgres answered " + rs.getInt(1));
            }
        }
    }

    public static void redis(String host, String port, String user, String password) {
        requireLoopback(host);
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().user(user).password(password)
                .connectionTimeoutMillis(3000).socketTimeoutMillis(5000).build();
        try (Jedis jedis = new Jedis(new HostAndPort(host, Integer.parseInt(port)), config)) {
            String pong = jedis.ping();
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("redis answered " + pong);
            }
        }
    }

    private static void requireLoopback(String host) {
        if (!"127.0.0.1".equals(host)) {
            throw new IllegalStateException("tests only contact 127.0.0.1, got " + host);
        }
    }
}
