package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.settings.AuditQuery;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TTLs against real Docker: a named sandbox expires and is removed; a verb set slides while used and is re-made after it expires. */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TtlIT {
    @TempDir
    Path dir;

    @Test
    void aNamedSandboxWithAFiveSecondTtlIsGoneWithinFifteenSecondsOnATwoSecondTick() throws Exception {
        try (LifecycleServer s = new LifecycleServer(
                dir, Map.of("ROBOCO_SANDBOX_JANITOR_TICK", "2s"), new InMemorySettingsStore(), Clock.systemUTC())) {
            s.project("shop", "[\"redis\"]", null);
            long t0 = System.nanoTime();
            ApiClient.Reply created =
                    s.create("{\"owner\":\"job:ci-1\",\"project\":\"shop\",\"name\":\"short\",\"ttl\":\"5s\"}");
            assertThat(created.ok()).as(created.toString()).isTrue();
            Map<String, Object> sandbox = sandbox(created);
            String id = (String) sandbox.get("id");
            Map<String, String> env = env(sandbox, 0);
            assertThat(Probe.tryUse("redis", env)).isNull();

            long deadline = t0 + TimeUnit.SECONDS.toNanos(15);
            while (System.nanoTime() < deadline && !s.running().isEmpty()) {
                Thread.sleep(100);
            }
            // The expiry chore writes its audit record right after removing the containers.
            while (System.nanoTime() < deadline
                    && s.store
                            .page(new AuditQuery("job:ci-1", "expired", 10, null))
                            .records()
                            .isEmpty()) {
                Thread.sleep(20);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("[figure] TtlIT 5s-TTL named sandbox gone %.1f s after creation (tick 2s)%n", seconds);
            assertThat(s.running()).as("containers of the expired sandbox").isEmpty();
            assertThat(Probe.tryUse("redis", env))
                    .as("the expired sandbox's credentials")
                    .isNotNull();
            List<AuditRecord> expired = s.store
                    .page(new AuditQuery("job:ci-1", "expired", 10, null))
                    .records();
            assertThat(expired).hasSize(1);
            assertThat(expired.get(0).reason()).contains(id);
            Map<String, Object> after = byId(s.api.admin("GET", "/api/sandboxes?state=all", null), id);
            assertThat(after).containsEntry("state", "deleted").containsEntry("deleted_reason", "expired");
        }
    }

    @Test
    void anExpiredSandboxIsListedAsExpiredUntilTheNextTickRemovesIt() throws Exception {
        MutableClock clock = MutableClock.atNow();
        try (LifecycleServer s = new LifecycleServer(dir, Map.of(), new InMemorySettingsStore(), clock)) {
            s.project("shop", "[\"redis\"]", null);
            String id = (String) sandbox(s.create("{\"owner\":\"job:ci-1\",\"project\":\"shop\",\"ttl\":\"1m\"}"))
                    .get("id");
            clock.advance(Duration.ofSeconds(61));
            assertThat((List<?>)
                            s.api.admin("GET", "/api/sandboxes", null).json().get("sandboxes"))
                    .isEmpty();
            assertThat(byId(s.api.admin("GET", "/api/sandboxes?state=expired", null), id))
                    .containsEntry("state", "expired");
            assertThat(s.running()).hasSize(1);
            s.server.tickNow();
            assertThat(s.running()).isEmpty();
            assertThat(byId(s.api.admin("GET", "/api/sandboxes?state=all", null), id))
                    .containsEntry("state", "deleted");
            assertThat(s.store
                            .page(new AuditQuery("job:ci-1", "expired", 10, null))
                            .records())
                    .hasSize(1);
        }
    }

    @Test
    void theVerbSetStaysAliveWhileUsedAndIsRemadeWithFreshCredentialsAfterItExpires() throws Exception {
        MutableClock clock = MutableClock.atNow();
        try (LifecycleServer s = new LifecycleServer(
                dir,
                Map.of("ROBOCO_SANDBOX_TTL_DEFAULT", "5m", "ROBOCO_SANDBOX_TTL_MAX", "1h"),
                new InMemorySettingsStore(),
                clock)) {
            s.api.working("dev-1", "shop", "[\"redis\"]");
            ApiClient.Reply first = s.api.requestSandboxRetrying("dev-1", 3);
            assertThat(first.ok()).as(first.toString()).isTrue();
            Map<?, ?> firstEvidence = (Map<?, ?>) first.json().get("evidence");
            String firstId = (String) firstEvidence.get("sandbox_id");
            String password = first.grants().get("redis").get("ROBOCO_TEST_REDIS_PASSWORD");
            for (int i = 0; i < 4; i++) { // 16 minutes of use, past three TTLs, every call within one
                clock.advance(Duration.ofMinutes(4));
                s.server.tickNow();
                ApiClient.Reply hit = s.api.requestSandbox("dev-1");
                assertThat(hit.grants().get("redis").get("ROBOCO_TEST_REDIS_PASSWORD"))
                        .as("call %d", i)
                        .isEqualTo(password);
                assertThat(((Map<?, ?>) hit.json().get("evidence")).get("sandbox_id"))
                        .isEqualTo(firstId);
            }
            Map<String, String> oldEnv = first.grants().get("redis");
            clock.advance(Duration.ofMinutes(6)); // unused past its TTL
            s.server.tickNow();
            assertThat(s.running()).isEmpty();
            assertThat(Probe.tryUse("redis", oldEnv)).isNotNull();
            ApiClient.Reply fresh = s.api.requestSandboxRetrying("dev-1", 3);
            assertThat(fresh.ok()).isTrue();
            Map<?, ?> evidence = (Map<?, ?>) fresh.json().get("evidence");
            assertThat(evidence.get("expired_sandbox")).isEqualTo(firstId);
            assertThat((String) evidence.get("note")).contains("expired").contains("new credentials");
            assertThat(evidence.get("sandbox_id")).isNotEqualTo(firstId);
            assertThat(fresh.grants().get("redis").get("ROBOCO_TEST_REDIS_PASSWORD"))
                    .isNotEqualTo(password);
            assertThat(Probe.tryUse("redis", fresh.grants().get("redis"))).isNull();
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> sandbox(ApiClient.Reply r) {
        assertThat(r.ok()).as(r.toString()).isTrue();
        return (Map<String, Object>) r.json().get("sandbox");
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> env(Map<String, Object> sandbox, int service) {
        return (Map<String, String>) ((List<Map<String, Object>>) sandbox.get("services"))
                .get(service)
                .get("env");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> byId(ApiClient.Reply list, String id) {
        for (Object o : (List<?>) list.json().get("sandboxes")) {
            Map<String, Object> m = (Map<String, Object>) o;
            if (id.equals(m.get("id"))) {
                return m;
            }
        }
        throw new AssertionError("sandbox " + id + " not in " + list);
    }
}
