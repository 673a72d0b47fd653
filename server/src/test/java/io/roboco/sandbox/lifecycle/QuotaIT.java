package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.store.TestPostgres;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atomic quotas against real Docker: 64 concurrent creates for one owner at quota 3 give exactly 3 sandboxes
 * (and 3 containers) — on the embedded store, on PostgreSQL, and with two servers sharing one PostgreSQL store.
 * Every refusal is not retryable and lists the owner's live sandboxes.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class QuotaIT {
    private static final int CREATES = 64;

    @RegisterExtension
    static final TestPostgres.PerClass POSTGRES = TestPostgres.perClass();

    @TempDir
    Path dir;

    @Test
    void embeddedStoreGivesExactlyThree() throws Exception {
        try (LifecycleServer s = new LifecycleServer(
                dir.resolve("a"), Map.of(), JdbcSettingsStore.embedded(dir.resolve("a")), Clock.systemUTC())) {
            s.project("q", "[\"redis\"]", null);
            assertExactlyThree(List.of(s));
        }
    }

    @Test
    void postgresStoreGivesExactlyThree() throws Exception {
        String url = POSTGRES.server().newDatabase();
        try (LifecycleServer s = new LifecycleServer(
                dir.resolve("a"), Map.of(), POSTGRES.server().openStore(url), Clock.systemUTC())) {
            s.project("q", "[\"redis\"]", null);
            assertExactlyThree(List.of(s));
        }
    }

    @Test
    void twoServersSharingOnePostgresStoreTogetherGiveExactlyThree() throws Exception {
        String url = POSTGRES.server().newDatabase();
        try (LifecycleServer a = new LifecycleServer(
                        dir.resolve("a"), Map.of(), POSTGRES.server().openStore(url), Clock.systemUTC());
                LifecycleServer b = new LifecycleServer(
                        dir.resolve("b"), Map.of(), POSTGRES.server().openStore(url), Clock.systemUTC())) {
            assertThat(a.instanceId()).isNotEqualTo(b.instanceId());
            a.project("q", "[\"redis\"]", null);
            assertExactlyThree(List.of(a, b));
        }
    }

    /** Fires {@value #CREATES} creates for owner job:ci-1 at once (alternating servers), released together by a latch. */
    private static void assertExactlyThree(List<LifecycleServer> servers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CREATES);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<ApiClient.Reply>> replies = new ArrayList<>();
        try {
            for (int i = 0; i < CREATES; i++) {
                LifecycleServer target = servers.get(i % servers.size());
                String body = "{\"owner\":\"job:ci-1\",\"project\":\"q\",\"labels\":{\"run\":\"" + i + "\"}}";
                replies.add(pool.submit(() -> {
                    go.await();
                    return target.create(body);
                }));
            }
            go.countDown();
            Set<String> created = new HashSet<>();
            List<Map<String, Object>> refusals = new ArrayList<>();
            for (Future<ApiClient.Reply> f : replies) {
                ApiClient.Reply r = f.get(3, TimeUnit.MINUTES);
                assertThat(r.status()).as(r.toString()).isEqualTo(200);
                Map<String, Object> json = r.json();
                if (Boolean.TRUE.equals(json.get("ok"))) {
                    created.add((String) ((Map<?, ?>) json.get("sandbox")).get("id"));
                } else {
                    refusals.add(json);
                }
            }
            System.out.println("[figure] QuotaIT " + servers.size() + " server(s): " + created.size() + " created, "
                    + refusals.size() + " refused of " + CREATES + " concurrent creates at quota 3");
            assertThat(created).hasSize(3);
            assertThat(refusals).hasSize(CREATES - 3);
            for (Map<String, Object> refusal : refusals) {
                assertThat(refusal).containsEntry("error", "refused").containsEntry("retryable", false);
                assertThat((String) refusal.get("reason"))
                        .contains("owner 'job:ci-1'")
                        .contains("quota of 3");
                List<?> listed = (List<?>) refusal.get("owner_sandboxes");
                assertThat(listed).hasSizeBetween(1, 3);
                for (Object o : listed) {
                    assertThat(created).contains((String) ((Map<?, ?>) o).get("id"));
                }
            }
            int containers = servers.stream().mapToInt(s -> s.running().size()).sum();
            assertThat(containers)
                    .as("one redis container per created sandbox, none for a refusal")
                    .isEqualTo(3);
            ApiClient.Reply list = servers.get(0).api.admin("GET", "/api/sandboxes?owner=job:ci-1", null);
            assertThat((List<?>) list.json().get("sandboxes")).hasSize(3);
        } finally {
            pool.shutdownNow();
        }
    }
}
