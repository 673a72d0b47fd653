package io.roboco.sandbox.it;

import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCredential;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.connection.ClusterConnectionMode;
import io.roboco.sandbox.testkit.Redact;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** Uses granted credentials the way an agent would; throws when they do not work. Only 127.0.0.1. */
public final class Probe {
    private Probe() {}

    /** Logs in with the env dict of one granted service and runs one command. */
    public static void use(String service, Map<String, String> env) throws Exception {
        switch (service) {
            case "postgres":
                postgres(
                        env.get("ROBOCO_TEST_DB_HOST"),
                        env.get("ROBOCO_TEST_DB_PORT"),
                        env.get("ROBOCO_TEST_DB_NAME"),
                        env.get("ROBOCO_TEST_DB_USER"),
                        env.get("ROBOCO_TEST_DB_PASSWORD"));
                return;
            case "redis":
                redis(
                        env.get("ROBOCO_TEST_REDIS_HOST"),
                        env.get("ROBOCO_TEST_REDIS_PORT"),
                        env.get("ROBOCO_TEST_REDIS_USER"),
                        env.get("ROBOCO_TEST_REDIS_PASSWORD"));
                return;
            case "mongo":
                mongo(
                        env.get("ROBOCO_TEST_MONGO_HOST"),
                        env.get("ROBOCO_TEST_MONGO_PORT"),
                        env.get("ROBOCO_TEST_MONGO_NAME"),
                        env.get("ROBOCO_TEST_MONGO_USER"),
                        env.get("ROBOCO_TEST_MONGO_PASSWORD"),
                        env.get("ROBOCO_TEST_MONGO_NAME"));
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
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(user)
                .password(password)
                .connectionTimeoutMillis(3000)
                .socketTimeoutMillis(5000)
                .build();
        try (Jedis jedis = new Jedis(new HostAndPort(host, Integer.parseInt(port)), config)) {
            String pong = jedis.ping();
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("redis answered " + pong);
            }
        }
    }

    /**
     * mongodb-driver-sync: authenticates as {@code user} against {@code authSource} (none when {@code user} is null),
     * then reads database {@code db} ({@code count} on a collection: it needs both a login and a right to {@code db}).
     */
    public static void mongo(String host, String port, String db, String user, String password, String authSource) {
        requireLoopback(host);
        MongoClientSettings.Builder settings = MongoClientSettings.builder()
                .applyToClusterSettings(b -> b.hosts(List.of(new ServerAddress(host, Integer.parseInt(port))))
                        .mode(ClusterConnectionMode.SINGLE)
                        .serverSelectionTimeout(3, TimeUnit.SECONDS))
                .applyToSocketSettings(
                        b -> b.connectTimeout(3, TimeUnit.SECONDS).readTimeout(5, TimeUnit.SECONDS))
                .retryReads(false)
                .retryWrites(false);
        if (user != null) {
            settings.credential(MongoCredential.createCredential(user, authSource, password.toCharArray()));
        }
        try (MongoClient client = MongoClients.create(settings.build())) {
            client.getDatabase(db).runCommand(new Document("count", "probe"));
        }
    }

    private static void requireLoopback(String host) {
        if (!"127.0.0.1".equals(host)) {
            throw new IllegalStateException("tests only contact 127.0.0.1, got " + host);
        }
    }
}
