package io.roboco.sandbox.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The extension against a fake lifecycle API ({@link FakeLifecycleApi}): annotated classes run through the JUnit
 * Platform launcher, as a build tool runs them, and the test checks what they were given and what the server was
 * asked (one create per lease with every service, the project, TTL and labels; one delete each at the end).
 */
class RoboCoSandboxExtensionTest {
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    private FakeLifecycleApi api;

    @BeforeEach
    void start() throws Exception {
        api = new FakeLifecycleApi();
        SEEN.clear();
        System.setProperty("ROBOCO_SANDBOX_URL", api.url());
        System.setProperty("ROBOCO_SANDBOX_CLIENT_TOKEN", FakeLifecycleApi.TOKEN);
    }

    @AfterEach
    void stop() {
        System.clearProperty("ROBOCO_SANDBOX_URL");
        System.clearProperty("ROBOCO_SANDBOX_CLIENT_TOKEN");
        System.clearProperty("ROBOCO_SANDBOX_PROJECT");
        api.close();
    }

    @RoboCoSandbox(project = "shop", labels = "run=42", ttl = "20m")
    static class PerClass {
        static PostgresSandbox postgres;
        RedisSandbox redis;

        @Test
        void one(MongoSandbox mongo) {
            SEEN.add(postgres);
            SEEN.add(redis);
            SEEN.add(mongo);
        }

        @Test
        void two(PostgresSandbox again) {
            SEEN.add(again);
        }
    }

    @Test
    void perClassLeasesOneSandboxWithEveryServiceAndDeletesItAtTheEnd() {
        TestExecutionSummary summary = run(PerClass.class);
        assertThat(summary.getTestsSucceededCount()).as(failures(summary)).isEqualTo(2);

        assertThat(api.calls("POST")).singleElement().satisfies(c -> {
            assertThat(c.path()).isEqualTo("/api/sandboxes");
            assertThat(c.authorization()).isEqualTo("Bearer " + FakeLifecycleApi.TOKEN);
            assertThat(c.body().path("project").asText()).isEqualTo("shop");
            assertThat(c.body().path("services").toString()).isEqualTo("[\"mongo\",\"postgres\",\"redis\"]");
            assertThat(c.body().path("ttl").asText()).isEqualTo("20m");
            assertThat(c.body().path("name").asText()).matches("PerClass-[0-9a-f]{8}");
            assertThat(c.body().path("labels").path("run").asText()).isEqualTo("42");
            assertThat(c.body().path("labels").path("junit.class").asText())
                    .isEqualTo(PerClass.class.getName().replace('$', '.'));
            assertThat(c.body().has("owner")).as("the token's owner is implied").isFalse();
        });
        String id = "sbx_a001";
        assertThat(api.calls("DELETE"))
                .singleElement()
                .satisfies(c -> assertThat(c.path()).isEqualTo("/api/sandboxes/" + id));

        PostgresSandbox pg = (PostgresSandbox) SEEN.get(0);
        assertThat(pg.sandboxId()).isEqualTo(id);
        assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + pg.port() + "/db_" + id);
        assertThat(pg.getJdbcUrl()).isEqualTo(pg.jdbcUrl());
        assertThat(pg.getUsername()).isEqualTo("u_" + id);
        assertThat(pg.getPassword()).isEqualTo("secret-" + id);
        assertThat(pg.getDatabaseName()).isEqualTo("db_" + id);
        assertThat(pg.toString()).doesNotContain("secret");
        assertThat(((RedisSandbox) SEEN.get(1)).url()).startsWith("redis://");
        assertThat(((MongoSandbox) SEEN.get(2)).getConnectionString()).startsWith("mongo://");
        assertThat(((PostgresSandbox) SEEN.get(3)).sandboxId()).isEqualTo(id);
    }

    @RoboCoSandbox(project = "shop", lifetime = RoboCoSandbox.Lifetime.PER_METHOD)
    static class PerMethod {
        PostgresSandbox postgres;

        @Test
        void one() {
            SEEN.add(postgres.sandboxId());
        }

        @Test
        void two(PostgresSandbox same) {
            SEEN.add(postgres.sandboxId());
            SEEN.add(same.sandboxId());
        }

        /** Not a JUnit method: its parameter asks for no lease. */
        static String helper(RedisSandbox redis) {
            return redis.url();
        }
    }

    @Test
    void perMethodLeasesAFreshSandboxForEveryTestAndDeletesEach() {
        TestExecutionSummary summary = run(PerMethod.class);
        assertThat(summary.getTestsSucceededCount()).as(failures(summary)).isEqualTo(2);
        assertThat(api.calls("POST")).hasSize(2);
        assertThat(api.calls("POST").get(0).body().path("name").asText()).matches("PerMethod\\.(one|two)-[0-9a-f]{8}");
        assertThat(api.calls("DELETE"))
                .extracting(FakeLifecycleApi.Call::path)
                .containsExactlyInAnyOrder("/api/sandboxes/sbx_a001", "/api/sandboxes/sbx_a002");
        assertThat(SEEN).hasSize(3);
        assertThat(Map.of("distinct", SEEN.stream().distinct().count())).containsEntry("distinct", 2L);
    }

    @RoboCoSandbox
    static class NoProject {
        @Test
        void needsOne(PostgresSandbox postgres) {}
    }

    @Test
    void aMissingProjectFailsNamingWhereToSetIt() {
        TestExecutionSummary summary = run(NoProject.class);
        assertThat(summary.getTotalFailureCount()).isEqualTo(1);
        assertThat(failures(summary)).contains("ROBOCO_SANDBOX_PROJECT");
        assertThat(api.calls).isEmpty();

        System.setProperty("ROBOCO_SANDBOX_PROJECT", "from-env");
        assertThat(run(NoProject.class).getTestsSucceededCount()).isEqualTo(1);
        assertThat(api.calls("POST").get(0).body().path("project").asText()).isEqualTo("from-env");
    }

    @Test
    void aRefusalFailsTheClassWithTheServersReasonAndLeavesNothing() {
        api.refusal = "owner 'job:ci-1' has 2 live sandbox(es), its quota of 2";
        TestExecutionSummary summary = run(PerClass.class);
        assertThat(summary.getTestsSucceededCount()).isZero();
        assertThat(failures(summary)).contains("quota of 2").doesNotContain("secret");
        assertThat(api.calls("DELETE")).isEmpty();
    }

    @Test
    void aWrongTokenFailsNamingTheSetting() {
        System.setProperty("ROBOCO_SANDBOX_CLIENT_TOKEN", "rbxc_wrong");
        TestExecutionSummary summary = run(PerClass.class);
        assertThat(summary.getTestsSucceededCount()).isZero();
        assertThat(failures(summary)).contains("HTTP 403").contains("ROBOCO_SANDBOX_CLIENT_TOKEN");
    }

    private static TestExecutionSummary run(Class<?> testClass) {
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(
                LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectClass(testClass))
                        .build(),
                listener);
        return listener.getSummary();
    }

    private static String failures(TestExecutionSummary summary) {
        StringBuilder b = new StringBuilder();
        summary.getFailures()
                .forEach(f -> b.append(f.getTestIdentifier().getDisplayName())
                        .append(": ")
                        .append(f.getException())
                        .append('\n'));
        return b.toString();
    }
}
