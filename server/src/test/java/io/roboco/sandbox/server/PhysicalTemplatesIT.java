package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.it.LogCapture;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Physical templates against the real daemon and the local Postgres images (15 on bookworm, 17 on trixie), checked with
 * the official {@code psql} on the handed-out env: save_template keeps, beside the dump, the data directory of a cleanly
 * stopped server that restored it; a new sandbox from the template (per call, and the seeded pool's) starts from that
 * copy (the server's own log says so), holds the rows, uses the extensions the template uses, belongs to the new agent,
 * whose fresh password is the only one that logs in (the copy's role and database are renamed, never handed out). A
 * sandbox of another major is not started from the copy: the reason is logged, naming both images and majors, and the
 * dump is restored instead.
 */
@SuppressWarnings("unchecked")
class PhysicalTemplatesIT {
    private static final String SCHEMA = """
            CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email citext UNIQUE);
            CREATE INDEX customers_name_trgm ON customers USING gin (name gin_trgm_ops);
            CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id int NOT NULL REFERENCES customers (id),
              total numeric(10,2), placed timestamptz DEFAULT now());
            CREATE VIEW big_orders AS SELECT o.id, c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id
              WHERE o.total > 100;
            INSERT INTO customers (name, email) SELECT 'customer ' || g, 'C' || g || '@Example.Test'
              FROM generate_series(1, 5000) g;
            INSERT INTO orders (customer_id, total) SELECT 1 + g % 5000, (g % 300)::numeric FROM generate_series(1, 20000) g;
            """;

    private static ContainerRuntime docker;

    /** The label of a volume holding a template's unpacked copy (its value: the server's instance). */
    private static final String TEMPLATE_VOLUME = "roboco.sandbox.template-copy";

    @TempDir
    Path stateDir;

    private TestServer server;
    private ApiClient api;

    @BeforeAll
    static void docker() {
        docker = LocalImages.requireDockerAndImages();
    }

    @AfterAll
    static void closeDocker() {
        docker.close();
    }

    private void start(Map<String, String> more) {
        start(more, DockerContainerRuntime.connect());
    }

    private void start(Map<String, String> more, ContainerRuntime runtime) {
        Map<String, String> env = new HashMap<>(Map.of(
                "ROBOCO_SANDBOX_STATE_DIR", stateDir.toString(),
                "ROBOCO_SANDBOX_NETWORK", "host",
                "ROBOCO_SANDBOX_IMAGE_POSTGRES", "roboco-sandbox/postgres:15",
                "ROBOCO_SANDBOX_IMAGE_POSTGRES_17", "roboco-sandbox/postgres:17",
                "ROBOCO_SANDBOX_DB_ENABLED", "true",
                "ROBOCO_SANDBOX_API_TOKEN", ApiClient.API_TOKEN,
                "ROBOCO_SANDBOX_ADMIN_TOKEN", ApiClient.ADMIN_TOKEN,
                // this schema dumps to about 1 MB: below the default 4m, a template keeps its dump only
                "ROBOCO_SANDBOX_TEMPLATE_PHYSICAL_MIN_DUMP", "0"));
        env.putAll(more);
        server = new TestServer(
                ServerConfig.fromEnv(env).withPort(0),
                runtime,
                EngineRegistry.defaults(),
                JdbcSettingsStore.embedded(stateDir));
        api = server.api;
    }

    @AfterEach
    void stop() {
        if (server == null) {
            return;
        }
        String instance = server.server.instanceId();
        server.close();
        docker.list(Map.of(SandboxLabels.SANDBOX, "1", SandboxLabels.INSTANCE, instance))
                .forEach(c -> docker.remove(c.id()));
        // its sandboxes outlive the server, so the volumes they mount do too (the instance's next start drops them)
        docker.volumes(Map.of(TEMPLATE_VOLUME, instance)).forEach(docker::removeVolume);
        assertThat(docker.volumes(Map.of(TEMPLATE_VOLUME, instance))).isEmpty();
        server = null;
    }

    @Test
    void aSandboxFromAPhysicalTemplateHasTheDataTheExtensionsAndOnlyItsOwnFreshPassword() throws Exception {
        start(Map.of());
        project("shop", "15", null);
        Map<String, String> source = sandbox("dev-1", "shop", "{}");
        psql(source, SCHEMA);

        Map<String, Object> saved = ok("dev-1", "save_template", "{\"name\":\"shop-v1\"}");
        assertThat(saved.get("physical_copy"))
                .as("save_template's answer: %s", saved)
                .isInstanceOf(Map.class);
        Map<String, Object> copy = (Map<String, Object>) saved.get("physical_copy");
        assertThat(copy).containsEntry("image", "roboco-sandbox/postgres:15").containsEntry("major", "15");
        Path archive = stateDir.resolve("templates/shop/shop-v1.datadir.tar");
        assertThat(archive).exists();
        assertThat(Files.size(archive)).isEqualTo(((Number) copy.get("size_bytes")).longValue());
        Map<String, Object> physical = (Map<String, Object>) ((List<Map<String, Object>>)
                        api.admin("GET", "/api/templates", null).json().get("templates"))
                .get(0)
                .get("physical");
        String originUser = (String) physical.get("user");
        String originDatabase = (String) physical.get("database");

        Map<String, String> seeded = dev2FromTheCopy(
                "from its unpacked volume",
                "the server started dev-2's Postgres from the copy, unpacked into a volume at save");
        assertThat(docker.volumes(Map.of(TEMPLATE_VOLUME, server.server.instanceId())))
                .as("one volume holds the template's unpacked copy")
                .hasSize(1);
        assertHoldsTheTemplate(seeded);
        assertThat(seeded.get("ROBOCO_TEST_DB_PASSWORD")).isNotEqualTo(source.get("ROBOCO_TEST_DB_PASSWORD"));
        assertThat(seeded.get("ROBOCO_TEST_DB_USER")).isNotEqualTo(originUser);
        assertThat(psql(seeded, "SELECT current_database() || ' ' || current_user"))
                .isEqualTo(seeded.get("ROBOCO_TEST_DB_NAME") + " " + seeded.get("ROBOCO_TEST_DB_USER"));
        assertThat(psql(seeded, "SELECT count(*) FROM pg_roles WHERE rolname = '" + originUser + "'"))
                .as("the copy's own login role was renamed to the new agent's")
                .isEqualTo("0");
        assertThat(psql(seeded, "SELECT count(*) FROM pg_database WHERE datname = '" + originDatabase + "'"))
                .isEqualTo("0");
        Map<String, String> wrongPassword = new HashMap<>(seeded);
        wrongPassword.put("ROBOCO_TEST_DB_PASSWORD", source.get("ROBOCO_TEST_DB_PASSWORD"));
        assertThat(psqlFails(wrongPassword, "SELECT 1"))
                .as("another sandbox's password does not log in")
                .contains("password authentication failed");
        assertThat(psql(source, "SELECT count(*) FROM customers"))
                .as("the source sandbox is untouched by the copy")
                .isEqualTo("5000");
    }

    @Test
    void aRuntimeThatMountsNoVolumesStreamsTheCopyIn() throws Exception {
        start(Map.of(), noVolumes(DockerContainerRuntime.connect()));
        project("shop", "15", null);
        Map<String, String> source = sandbox("dev-1", "shop", "{}");
        psql(source, SCHEMA);
        assertThat(ok("dev-1", "save_template", "{\"name\":\"shop-v1\"}").get("physical_copy"))
                .isInstanceOf(Map.class);
        Map<String, String> seeded =
                dev2FromTheCopy("streamed in", "as on Kubernetes: the copy is streamed through an exec");
        assertThat(docker.volumes(Map.of(TEMPLATE_VOLUME, server.server.instanceId())))
                .isEmpty();
        assertHoldsTheTemplate(seeded);
    }

    /** {@code runtime} as one that mounts no volumes (the Kubernetes runtime's answer), otherwise itself. */
    private static ContainerRuntime noVolumes(ContainerRuntime runtime) {
        return (ContainerRuntime) Proxy.newProxyInstance(
                ContainerRuntime.class.getClassLoader(), new Class<?>[] {ContainerRuntime.class}, (proxy, m, args) -> {
                    if (m.getName().equals("mountsVolumes")) {
                        return false;
                    }
                    try {
                        return m.invoke(runtime, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void theSeededPoolHandsOverAPhysicalCopyToTheClaimingAgent() throws Exception {
        start(Map.of("ROBOCO_SANDBOX_POOL_SEEDED", "1"));
        project("shop", "15", null);
        psql(sandbox("dev-1", "shop", "{}"), SCHEMA);
        assertThat(ok("dev-1", "save_template", "{\"name\":\"shop-v1\"}").get("physical_copy"))
                .isInstanceOf(Map.class);
        try (LogCapture log = new LogCapture()) {
            project("shop", "15", "shop-v1"); // saving the project primes its seeded pool
            awaitIdleSeeded();
            assertThat(log.logged())
                    .as("the seeded pool's container was made from the copy")
                    .contains("(from template 'shop-v1''s physical copy)");
        }
        Map<String, String> claimed = sandbox("dev-2", "shop", "{}");
        assertThat(docker.inspect(containerOf("dev-2")).orElseThrow().labels())
                .as("dev-2's sandbox is the seeded pool's container")
                .containsKey(SandboxLabels.POOL_SEED);
        assertHoldsTheTemplate(claimed);
        assertThat(psql(claimed, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'roboco_seeder_%'"))
                .as("the seeder role the copy was renamed to is gone after the claim")
                .isEqualTo("0");
    }

    @Test
    void aSandboxOfAnotherMajorRestoresTheDumpAndTheLogSaysWhyNotTheCopy() throws Exception {
        start(Map.of());
        project("shop", "15", null);
        psql(sandbox("dev-1", "shop", "{}"), SCHEMA);
        assertThat(ok("dev-1", "save_template", "{\"name\":\"shop-v1\"}").get("physical_copy"))
                .isInstanceOf(Map.class);
        project("shop17", "17", null);
        ApiClient.Reply copied =
                api.admin("POST", "/api/templates/shop-v1/copy", "{\"from\":\"shop\",\"to\":\"shop17\"}");
        assertThat(copied.status()).as(copied.body()).isEqualTo(200);
        assertThat(stateDir.resolve("templates/shop17/shop-v1.datadir.tar"))
                .as("the operator's copy keeps the physical copy")
                .exists();

        Map<String, String> on17;
        try (LogCapture log = new LogCapture()) {
            on17 = sandbox("dev-3", "shop17", "{\"template\":\"shop-v1\"}");
            assertThat(log.logged())
                    .contains("template 'shop-v1' of project 'shop17': its physical copy was written by PostgreSQL 15"
                            + " on image roboco-sandbox/postgres:15, and this sandbox runs PostgreSQL 17 on image"
                            + " roboco-sandbox/postgres:17 (a data directory starts only on the major and image that"
                            + " wrote it); its dump is restored instead")
                    .doesNotContain("postgres for agent dev-3: started from template");
        }
        assertThat(psql(on17, "SHOW server_version_num")).startsWith("17");
        assertHoldsTheTemplate(on17);
    }

    /**
     * dev-2's sandbox of {@code shop} from template {@code shop-v1}, its log saying it started from the physical copy and
     * how the copy got in ({@code how}: "from its unpacked volume", "streamed in").
     */
    private Map<String, String> dev2FromTheCopy(String how, String why) throws Exception {
        try (LogCapture log = new LogCapture()) {
            Map<String, String> seeded = sandbox("dev-2", "shop", "{\"template\":\"shop-v1\"}");
            assertThat(log.logged())
                    .as(why)
                    .contains("postgres for agent dev-2: started from template 'shop-v1''s physical copy")
                    .contains("bytes, " + how + ")");
            return seeded;
        }
    }

    /** The template's rows, its view, its extensions at work, objects the agent owns, and writes that work. */
    private static void assertHoldsTheTemplate(Map<String, String> env) {
        assertThat(psql(env, "SELECT count(*) FROM customers")).isEqualTo("5000");
        assertThat(psql(env, "SELECT count(*) FROM orders")).isEqualTo("20000");
        assertThat(psql(env, "SELECT count(*) > 0 FROM big_orders")).isEqualTo("t");
        assertThat(psql(env, "SELECT name FROM customers WHERE email = 'c42@example.test'"))
                .as("citext compares case-insensitively")
                .isEqualTo("customer 42");
        assertThat(psql(env, "SELECT similarity('customer 42', 'customer 43') > 0.5"))
                .as("pg_trgm answers")
                .isEqualTo("t");
        assertThat(psql(env, "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension"))
                .isEqualTo("citext,pg_trgm,plpgsql");
        assertThat(psql(
                        env,
                        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                                + " WHERE n.nspname = 'public' AND c.relkind IN ('r','v','S')"
                                + " AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user)"))
                .as("relations the agent does not own")
                .isEqualTo("0");
        psql(
                env,
                "INSERT INTO customers (name, email) VALUES ('new one', 'New@One.Test'); DELETE FROM customers"
                        + " WHERE email = 'new@one.test'");
    }

    private void project(String id, String major, String templateSeed) {
        String seed =
                templateSeed == null ? "" : ",\"sandbox_seed\":{\"postgres\":{\"template\":\"" + templateSeed + "\"}}";
        ApiClient.Reply reply = api.admin(
                "PUT",
                "/api/projects/" + id,
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"" + major + "\"},"
                        + "\"sandbox_extensions\":{\"postgres\":[\"citext\",\"pg_trgm\"]}" + seed + "}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    }

    /** The Postgres env {@code slug}'s request_sandbox answers with, after spawn and give_me_work in {@code project}. */
    private Map<String, String> sandbox(String slug, String project, String args) {
        assertThat(api.orchestrator(
                                "POST",
                                "/api/agents/" + slug + "/spawn",
                                "{\"role\":\"developer\",\"project\":\"" + project + "\"}")
                        .status())
                .isEqualTo(200);
        assertThat(api.verb(slug, "give_me_work", "{\"project\":\"" + project + "\",\"task\":\"T-1\"}")
                        .json())
                .containsEntry("ok", true);
        ApiClient.Reply reply = api.verb(slug, "request_sandbox", args);
        assertThat(reply.json()).as(reply.toString()).containsEntry("ok", true);
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) ((Map<String, Object>) reply.json().get("evidence")).get("sandboxes");
        return (Map<String, String>) sandboxes.get(0).get("env");
    }

    private Map<String, Object> ok(String slug, String verb, String args) {
        ApiClient.Reply reply = api.verb(slug, verb, args);
        assertThat(reply.json()).as(reply.toString()).containsEntry("ok", true);
        return (Map<String, Object>) reply.json().get("evidence");
    }

    private String containerOf(String slug) {
        Map<String, Object> record = ((List<Map<String, Object>>) api.admin("GET", "/api/sandboxes?owner=" + slug, null)
                        .json()
                        .get("sandboxes"))
                .get(0);
        return (String)
                ((List<Map<String, Object>>) record.get("containers")).get(0).get("container_id");
    }

    /** Until the seeded pool holds a ready container (within 180 s). */
    private void awaitIdleSeeded() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (server.server.poolIdle().getOrDefault(ServerConfig.SEEDED_KEY, 0) < 1) {
            assertThat(System.nanoTime())
                    .as("the seeded pool filled within 180 s")
                    .isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static String psql(Map<String, String> env, String sql) {
        Result r = run(env, sql);
        assertThat(r.exit).as("psql exit code; stderr: %s", r.err).isZero();
        return r.out.strip();
    }

    private static String psqlFails(Map<String, String> env, String sql) {
        Result r = run(env, sql);
        assertThat(r.exit).as("psql exit code; stdout: %s", r.out).isNotZero();
        return r.err;
    }

    private record Result(int exit, String out, String err) {}

    /** The official client on the handed-out env, the password in its environment (never its arguments). */
    private static Result run(Map<String, String> env, String sql) {
        List<String> args = new ArrayList<>(List.of(
                "psql",
                "-X",
                "-A",
                "-t",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                env.get("ROBOCO_TEST_DB_HOST"),
                "-p",
                env.get("ROBOCO_TEST_DB_PORT"),
                "-U",
                env.get("ROBOCO_TEST_DB_USER"),
                "-d",
                env.get("ROBOCO_TEST_DB_NAME"),
                "-c",
                sql));
        try {
            ProcessBuilder builder = new ProcessBuilder(args);
            builder.environment().put("PGPASSWORD", env.get("ROBOCO_TEST_DB_PASSWORD"));
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            assertThat(process.waitFor(60, TimeUnit.SECONDS))
                    .as("psql finished")
                    .isTrue();
            return new Result(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException("psql (scripts/lib/prereqs.sh installs it)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            in.transferTo(buffer);
            return buffer.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
