package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** With a capacity of 2 containers, a 3-service request is a retryable invalid_state naming the numbers, and leaves nothing. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CapacityIT {
    @TempDir
    Path dir;

    @Test
    void aThreeServiceRequestAtCapacityTwoIsRetryableWithTheNumbersAndLeavesNothing() throws Exception {
        try (LifecycleServer s = new LifecycleServer(
                dir, Map.of("ROBOCO_SANDBOX_MAX_CONTAINERS", "2"), new InMemorySettingsStore(), Clock.systemUTC())) {
            s.api.working("dev-1", "big", "[\"postgres\",\"redis\",\"mongo\"]");
            ApiClient.Reply verb = s.api.requestSandbox("dev-1");
            assertThat(verb.json())
                    .containsEntry("ok", false)
                    .containsEntry("error", "invalid_state")
                    .containsEntry("retryable", true);
            assertThat((String) verb.json().get("reason"))
                    .startsWith("capacity: 0 of 2 sandbox containers live; this request needs 3")
                    .contains("ROBOCO_SANDBOX_MAX_CONTAINERS");
            ApiClient.Reply named = s.create("{\"owner\":\"job:ci-1\",\"project\":\"big\"}");
            assertThat(named.json()).containsEntry("error", "invalid_state").containsEntry("retryable", true);
            assertThat(s.running()).as("containers left behind").isEmpty();
            assertThat((List<?>) s.api.admin("GET", "/api/sandboxes?state=all", null)
                            .json()
                            .get("sandboxes"))
                    .isEmpty();

            // Two fit: a one-service sandbox is made, and the gauge counts it.
            ApiClient.Reply one = s.create("{\"owner\":\"job:ci-1\",\"project\":\"big\",\"services\":[\"redis\"]}");
            assertThat(one.ok()).as(one.toString()).isTrue();
            Map<?, ?> capacity = (Map<?, ?>)
                    s.api.admin("GET", "/api/sandboxes", null).json().get("capacity");
            assertThat(capacity.get("used")).isEqualTo(1);
            assertThat(capacity.get("max")).isEqualTo(2);
        }
    }
}
