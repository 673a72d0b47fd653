package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.MutableClock;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * List filters, cleanup of expired sandboxes (dry run first), and the operator's foreign-orphan mode, against
 * real Docker. The clock is moved by hand, so nothing sleeps.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ListAndCleanupIT {
    @TempDir
    Path dir;

    @Test
    void filtersByOwnerProjectAndLabelReturnExactlyTheMatchingSandboxes() throws Exception {
        try (LifecycleServer s =
                new LifecycleServer(dir, Map.of(), new InMemorySettingsStore(), MutableClock.atNow())) {
            s.project("shop", "[\"redis\"]", null);
            s.project("geo", "[\"redis\"]", null);
            String a = create(s, "job:ci-1", "shop", "{\"task\":\"T-1\",\"branch\":\"feat/x\"}");
            String b = create(s, "job:ci-1", "geo", "{\"task\":\"T-2\"}");
            String c = create(s, "job:ci-2", "shop", "{\"task\":\"T-1\"}");
            String d = create(s, "job:ci-2", "geo", "{}");
            assertThat(ids(s, "owner=job:ci-1")).containsExactlyInAnyOrder(a, b);
            assertThat(ids(s, "project=shop")).containsExactlyInAnyOrder(a, c);
            assertThat(ids(s, "label=task=T-1")).containsExactlyInAnyOrder(a, c);
            assertThat(ids(s, "label=task=T-1&label=branch=feat/x")).containsExactly(a);
            assertThat(ids(s, "owner=job:ci-2&project=geo")).containsExactly(d);
            assertThat(ids(s, "owner=nobody")).isEmpty();
            ApiClient.Reply bad = s.api.admin("GET", "/api/sandboxes?label=Task%20X=1", null);
            assertThat(bad.status()).isEqualTo(400);
            assertThat((String) bad.json().get("message")).contains("label key").contains("a-z, 0-9");
            String body = s.api.admin("GET", "/api/sandboxes", null).body();
            assertThat(body).doesNotContain("PASSWORD").doesNotContain("redis://");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void cleanupDryRunNamesTheExpiredAndRemovesNothingThenARealCleanupRemovesExactlyThose() throws Exception {
        MutableClock clock = MutableClock.atNow();
        try (LifecycleServer s = new LifecycleServer(dir, Map.of(), new InMemorySettingsStore(), clock)) {
            s.project("shop", "[\"redis\"]", null);
            String short1 = createTtl(s, "job:ci-1", "1m");
            String short2 = createTtl(s, "job:ci-2", "1m");
            String longLived = createTtl(s, "job:ci-1", "2h");
            clock.advance(Duration.ofMinutes(2));
            ApiClient.Reply dry = s.api.admin("POST", "/api/sandboxes/cleanup", "{\"dry_run\":true}");
            assertThat(dry.json()).containsEntry("dry_run", true).containsEntry("removed", List.of());
            assertThat(expiredIds(dry)).containsExactlyInAnyOrder(short1, short2);
            assertThat(s.running()).hasSize(3);
            ApiClient.Reply one =
                    s.api.admin("POST", "/api/sandboxes/cleanup", "{\"dry_run\":false,\"owner\":\"job:ci-2\"}");
            assertThat((List<Object>) one.json().get("removed")).containsExactly(short2);
            ApiClient.Reply real = s.api.admin("POST", "/api/sandboxes/cleanup", "{\"dry_run\":false}");
            assertThat((List<Object>) real.json().get("removed")).containsExactly(short1);
            assertThat(s.running()).hasSize(1);
            assertThat(ids(s, "")).containsExactly(longLived);
        }
    }

    @Test
    void aContainerOfAVanishedInstanceIsListedByTheForeignDryRunAndRemovedByTheForcedRun() throws Exception {
        String vanished = "sbx-vanished" + Long.toHexString(System.nanoTime());
        String alive = "sbx-alive" + Long.toHexString(System.nanoTime());
        String orphan = foreignContainer(vanished);
        String kept = foreignContainer(alive);
        InMemorySettingsStore store = new InMemorySettingsStore();
        try (LifecycleServer s = new LifecycleServer(dir, Map.of(), store, Clock.systemUTC())) {
            store.heartbeat(alive, Instant.now());
            String ask = "{\"foreign\":true,\"older_than\":\"1h\"";
            ApiClient.Reply dry =
                    s.api.admin("POST", "/api/sandboxes/cleanup", ask + ",\"dry_run\":true,\"force\":true}");
            Map<String, Map<String, Object>> found = byContainer(dry);
            assertThat(found.get(orphan))
                    .containsEntry("instance", vanished)
                    .containsEntry("instance_state", "unknown")
                    .containsEntry("action", "would remove");
            assertThat(found.get(kept)).containsEntry("instance_state", "alive");
            assertThat((String) found.get(kept).get("action")).startsWith("kept");
            assertThat(running(orphan)).isTrue();

            ApiClient.Reply unforced = s.api.admin("POST", "/api/sandboxes/cleanup", ask + ",\"dry_run\":false}");
            assertThat((String) byContainer(unforced).get(orphan).get("action"))
                    .startsWith("kept")
                    .contains("force");
            assertThat(running(orphan)).isTrue();

            ApiClient.Reply forced =
                    s.api.admin("POST", "/api/sandboxes/cleanup", ask + ",\"dry_run\":false,\"force\":true}");
            assertThat(byContainer(forced).get(orphan)).containsEntry("action", "removed");
            assertThat(running(orphan)).isFalse();
            assertThat(running(kept))
                    .as("a container whose instance is alive is never touched")
                    .isTrue();
        } finally {
            Fixtures.removeAllOf(vanished);
            Fixtures.removeAllOf(alive);
        }
    }

    /** A sleeping container labelled as a sandbox of {@code instance}, created (by its label) two hours ago. */
    private static String foreignContainer(String instance) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        long created = Instant.now().minus(Duration.ofHours(2)).getEpochSecond();
        String id = LocalImages.docker(
                        "run",
                        "-d",
                        "--network",
                        "host",
                        "--label",
                        "roboco.sandbox=1",
                        "--label",
                        "roboco.sandbox.instance=" + instance,
                        "--label",
                        "roboco.sandbox.agent=gone-1",
                        "--label",
                        "roboco.sandbox.service=redis",
                        "--label",
                        "roboco.sandbox.project=shop",
                        "--label",
                        "roboco.sandbox.created=" + created,
                        LocalImages.IMAGES.get("redis"),
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1")
                .strip();
        return id;
    }

    private static boolean running(String id) {
        return !LocalImages.docker("ps", "-q", "--no-trunc", "--filter", "id=" + id)
                .isBlank();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> byContainer(ApiClient.Reply r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return ((List<Map<String, Object>>) r.json().get("foreign"))
                .stream().collect(Collectors.toMap(m -> (String) m.get("container_id"), m -> m));
    }

    private static String create(LifecycleServer s, String owner, String project, String labels) {
        return (String) TtlIT.sandbox(s.create(
                        "{\"owner\":\"" + owner + "\",\"project\":\"" + project + "\",\"labels\":" + labels + "}"))
                .get("id");
    }

    private static String createTtl(LifecycleServer s, String owner, String ttl) {
        return (String)
                TtlIT.sandbox(s.create("{\"owner\":\"" + owner + "\",\"project\":\"shop\",\"ttl\":\"" + ttl + "\"}"))
                        .get("id");
    }

    private static Set<String> ids(LifecycleServer s, String query) {
        ApiClient.Reply r = s.api.admin("GET", "/api/sandboxes?" + query, null);
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return ((List<?>) r.json().get("sandboxes"))
                .stream().map(o -> (String) ((Map<?, ?>) o).get("id")).collect(Collectors.toSet());
    }

    private static Set<String> expiredIds(ApiClient.Reply r) {
        return ((List<?>) r.json().get("expired"))
                .stream().map(o -> (String) ((Map<?, ?>) o).get("id")).collect(Collectors.toSet());
    }
}
