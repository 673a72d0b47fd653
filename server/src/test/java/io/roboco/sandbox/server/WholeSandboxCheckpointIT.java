package io.roboco.sandbox.server;

import static io.roboco.sandbox.it.OfficialClients.mongo;
import static io.roboco.sandbox.it.OfficialClients.psql;
import static io.roboco.sandbox.it.OfficialClients.redis;
import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One checkpoint for the whole sandbox, over HTTP against the real daemon and the local images, checked with the official
 * clients on the handed-out env ({@code psql}, {@code redis-cli}, Debian's {@code python3} with pymongo): the agent writes
 * to Postgres, Redis and Mongo after one checkpoint, one rewind brings all three back on the same URLs; and a switch
 * forced to fail on Mongo (a seam around the real engine, armed by the test) is reported naming it, with Postgres and
 * Redis switched back, so the agent finds none of the three rewound.
 */
@SuppressWarnings("unchecked")
class WholeSandboxCheckpointIT {
    private static final AtomicBoolean FAIL_MONGO_SWITCH = new AtomicBoolean();

    private static ContainerRuntime docker;
    private static Path stateDir;
    private static TestServer server;
    private static ApiClient api;
    private static JdbcSettingsStore store;

    @BeforeAll
    static void start() throws IOException {
        docker = LocalImages.requireDockerAndImages();
        stateDir = Files.createTempDirectory("whole-sandbox-checkpoint");
        ServerConfig config = ServerConfig.fromEnv(Map.of(
                        "ROBOCO_SANDBOX_STATE_DIR", stateDir.toString(),
                        "ROBOCO_SANDBOX_NETWORK", "host",
                        "ROBOCO_SANDBOX_IMAGE_POSTGRES", "roboco-sandbox/postgres:15",
                        "ROBOCO_SANDBOX_IMAGE_REDIS", "roboco-sandbox/redis:7",
                        "ROBOCO_SANDBOX_IMAGE_MONGO", "roboco-sandbox/mongo-compat:3",
                        "ROBOCO_SANDBOX_DB_ENABLED", "true",
                        "ROBOCO_SANDBOX_API_TOKEN", ApiClient.API_TOKEN,
                        "ROBOCO_SANDBOX_ADMIN_TOKEN", ApiClient.ADMIN_TOKEN))
                .withPort(0);
        store = JdbcSettingsStore.embedded(stateDir);
        server = new TestServer(config, DockerContainerRuntime.connect(), withMongoSwitchSeam(), store);
        api = server.api;
        assertThat(api.admin("PUT", "/api/projects/multi", "{\"sandbox_services\":[\"postgres\",\"redis\",\"mongo\"]}")
                        .status())
                .isEqualTo(200);
    }

    @AfterAll
    static void stop() throws IOException {
        String instance = server.server.instanceId();
        server.close();
        store.close();
        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))
                .forEach(c -> docker.remove(c.id()));
        docker.close();
        try (var files = Files.walk(stateDir)) {
            files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void oneRewindBringsPostgresRedisAndMongoBackOnTheSameUrls() {
        Map<String, String> env = working("dev-1");
        psql(env, "CREATE TABLE items (id int PRIMARY KEY, title text); INSERT INTO items VALUES (1, 'before')");
        redis(env, "SET", "cache:1", "before");
        redis(env, "SET", "session:9", "x", "EX", "3600");
        mongo(env, "db.orders.insert_one({'_id': 1, 'state': 'before'})");

        Map<String, Object> checkpoint = ok("dev-1", "checkpoint_sandbox", "one");
        assertThat((List<Map<String, Object>>) checkpoint.get("services"))
                .extracting(s -> s.get("service"))
                .containsExactly("postgres", "redis", "mongo");

        psql(env, "UPDATE items SET title = 'after'; INSERT INTO items VALUES (2, 'new'); CREATE TABLE later (x int)");
        redis(env, "SET", "cache:1", "after");
        redis(env, "SET", "cache:2", "new");
        redis(env, "DEL", "session:9");
        mongo(env, "db.orders.update_one({'_id': 1}, {'$set': {'state': 'after'}}); db.orders.insert_one({'_id': 2})");

        Map<String, Object> rewind = ok("dev-1", "rewind_sandbox", "one");
        assertThat((List<Map<String, Object>>) rewind.get("services"))
                .extracting(s -> s.get("service"))
                .containsExactly("postgres", "redis", "mongo");

        assertThat(psql(env, "SELECT id, title FROM items ORDER BY id")).isEqualTo("1|before");
        assertThat(psql(env, "SELECT count(*) FROM pg_tables WHERE tablename = 'later'"))
                .isEqualTo("0");
        assertThat(redis(env, "GET", "cache:1")).isEqualTo("before");
        assertThat(redis(env, "EXISTS", "cache:2")).isEqualTo("0");
        assertThat(Long.parseLong(redis(env, "TTL", "session:9"))).isBetween(1L, 3600L);
        assertThat(mongo(env, "print(list(db.orders.find().sort('_id')))"))
                .isEqualTo("[{'_id': 1, 'state': 'before'}]");

        assertThat(request("dev-1"))
                .as("same sandbox, same URLs and credentials")
                .isEqualTo(env);
    }

    @Test
    void aSwitchThatFailsOnMongoIsReportedAndLeavesNoServiceRewound() {
        Map<String, String> env = working("dev-2");
        psql(env, "CREATE TABLE items (id int PRIMARY KEY, title text); INSERT INTO items VALUES (1, 'before')");
        redis(env, "SET", "k", "before");
        mongo(env, "db.orders.insert_one({'_id': 1, 'state': 'before'})");
        ok("dev-2", "checkpoint_sandbox", "safe");

        psql(env, "UPDATE items SET title = 'after'");
        redis(env, "SET", "k", "after");
        mongo(env, "db.orders.update_one({'_id': 1}, {'$set': {'state': 'after'}})");

        FAIL_MONGO_SWITCH.set(true);
        ApiClient.Reply failed = api.verb("dev-2", "rewind_sandbox", "{\"name\":\"safe\"}");
        assertThat(failed.json()).as(failed.body()).containsEntry("ok", false).containsEntry("error", "invalid_state");
        assertThat((String) failed.json().get("reason"))
                .contains("failed switching mongo", "forced by the test", "redis, postgres switched back")
                .endsWith("nothing was rewound");

        assertThat(psql(env, "SELECT title FROM items")).isEqualTo("after");
        assertThat(redis(env, "GET", "k")).isEqualTo("after");
        assertThat(mongo(env, "print(db.orders.find_one({'_id': 1})['state'])")).isEqualTo("after");

        FAIL_MONGO_SWITCH.set(false);
        ok("dev-2", "rewind_sandbox", "safe");
        assertThat(psql(env, "SELECT title FROM items")).isEqualTo("before");
        assertThat(redis(env, "GET", "k")).isEqualTo("before");
        assertThat(mongo(env, "print(db.orders.find_one({'_id': 1})['state'])")).isEqualTo("before");
    }

    // --- the seam ------------------------------------------------------------------------------

    /** The real engines; Mongo's prepared rewinds fail at their switch while {@link #FAIL_MONGO_SWITCH} is set. */
    private static EngineRegistry withMongoSwitchSeam() {
        List<Engine> engines = new ArrayList<>();
        for (Engine real : EngineRegistry.defaults().all()) {
            engines.add(real.name().equals("mongo") ? failingSwitch(real) : real);
        }
        return EngineRegistry.of(engines);
    }

    private static Engine failingSwitch(Engine real) {
        Checkpoints checkpoints = real.checkpoints().orElseThrow();
        Checkpoints seamed = (Checkpoints) Proxy.newProxyInstance(
                Checkpoints.class.getClassLoader(), new Class<?>[] {Checkpoints.class}, (proxy, method, args) -> {
                    Object result = forward(checkpoints, method, args);
                    if (method.getName().equals("prepareRewind")) {
                        return failingCommit((Checkpoints.PreparedRewind) result);
                    }
                    return result;
                });
        return (Engine) Proxy.newProxyInstance(
                Engine.class.getClassLoader(),
                new Class<?>[] {Engine.class},
                (proxy, method, args) ->
                        method.getName().equals("checkpoints") ? Optional.of(seamed) : forward(real, method, args));
    }

    private static Checkpoints.PreparedRewind failingCommit(Checkpoints.PreparedRewind real) {
        return (Checkpoints.PreparedRewind) Proxy.newProxyInstance(
                Checkpoints.class.getClassLoader(),
                new Class<?>[] {Checkpoints.PreparedRewind.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("commit") && FAIL_MONGO_SWITCH.get()) {
                        throw new IllegalStateException("mongo switch forced by the test to fail");
                    }
                    return forward(real, method, args);
                });
    }

    private static Object forward(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    // --- the agent's side --------------------------------------------------------------------

    private static Map<String, String> working(String slug) {
        api.working(slug, "developer", "multi", "[\"postgres\",\"redis\",\"mongo\"]");
        return request(slug);
    }

    private static Map<String, String> request(String slug) {
        ApiClient.Reply reply = api.verb(slug, "request_sandbox", "{}");
        assertThat(reply.json()).as(reply.toString()).containsEntry("ok", true);
        Map<String, String> env = new HashMap<>();
        for (Map<String, Object> s :
                (List<Map<String, Object>>) ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes")) {
            env.putAll((Map<String, String>) s.get("env"));
        }
        return env;
    }

    private static Map<String, Object> ok(String slug, String verb, String name) {
        ApiClient.Reply reply = api.verb(slug, verb, "{\"name\":\"" + name + "\"}");
        assertThat(reply.json()).as(reply.body()).containsEntry("ok", true);
        return (Map<String, Object>) reply.json().get("evidence");
    }
}
