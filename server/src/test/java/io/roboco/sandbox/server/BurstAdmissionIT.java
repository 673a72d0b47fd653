package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Gate;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.StartQueue;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.time.Duration;
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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 21's admission at the container-start seam, over HTTP against real Docker: a real burst of fresh agents is
 * served with never more starts in flight than {@code ROBOCO_SANDBOX_CONCURRENT_STARTS}, the rest queued; a start that
 * waits past {@code ROBOCO_SANDBOX_START_QUEUE_WAIT} is a retryable {@code invalid_state} naming its place in the queue
 * and an estimate, and starts nothing; an owner past {@code ROBOCO_SANDBOX_START_QUEUE_PER_OWNER} is answered the same
 * way at once. The turn is held by parking a start at the runtime seam ({@code RecordingRuntime.parkNextStart}), so
 * nothing here depends on how fast the machine is.
 */
class BurstAdmissionIT {
    private static final int BURST = 10;

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> BURSTY =
            InProcessServerExtension.startedBeforeAll(stateDir -> InProcessServer.withSettings(
                    stateDir,
                    Map.of(
                            "ROBOCO_SANDBOX_CONCURRENT_STARTS", "2",
                            "ROBOCO_SANDBOX_START_QUEUE_WAIT", "10m",
                            "ROBOCO_SANDBOX_READY_TIMEOUT", "120s",
                            "ROBOCO_SANDBOX_JANITOR_GRACE", "10m")));

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> STRICT =
            InProcessServerExtension.startedBeforeAll(stateDir -> InProcessServer.withSettings(
                    stateDir,
                    Map.of(
                            "ROBOCO_SANDBOX_CONCURRENT_STARTS", "1",
                            "ROBOCO_SANDBOX_START_QUEUE_WAIT", "2s",
                            "ROBOCO_SANDBOX_START_QUEUE_PER_OWNER", "1",
                            "ROBOCO_SANDBOX_READY_TIMEOUT", "120s",
                            "ROBOCO_SANDBOX_JANITOR_GRACE", "10m")));

    @Test
    void aBurstOfFreshAgentsIsServedWithAtMostTheConfiguredStartsInFlight() throws Exception {
        InProcessServer s = BURSTY.server();
        ApiClient api = s.api;
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            String agent = "burst-" + i;
            api.working(agent, "burst", "[\"postgres\"]");
            agents.add(agent);
        }
        ExecutorService threads = Executors.newFixedThreadPool(BURST);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<ApiClient.Reply>> replies = new ArrayList<>();
            for (String agent : agents) {
                replies.add(threads.submit(() -> {
                    go.await();
                    return api.requestSandbox(agent);
                }));
            }
            go.countDown();
            Set<String> passwords = new HashSet<>();
            for (Future<ApiClient.Reply> f : replies) {
                ApiClient.Reply r = f.get(10, TimeUnit.MINUTES);
                assertThat(r.ok()).as(r.toString()).isTrue();
                passwords.add(r.grants().get("postgres").get("ROBOCO_TEST_DB_PASSWORD"));
            }
            assertThat(passwords).as("every agent its own credential").hasSize(BURST);
            StartQueue.Snapshot queue = s.server.startQueue().snapshot();
            assertThat(queue.limit()).isEqualTo(2);
            assertThat(queue.peakInFlight()).as(queue.toString()).isBetween(1, 2);
            assertThat(queue.peakWaiting())
                    .as("starts beyond the two in flight waited their turn: " + queue)
                    .isPositive();
            assertThat(queue.inFlight()).isZero();
            assertThat(queue.waiting()).isZero();
            assertThat(queue.timedOut()).isZero();
            // The queue is on /metrics too.
            String metrics = api.send("GET", "/metrics", null, null).body();
            assertThat(metrics)
                    .contains("roboco_sandbox_start_queue_peak_waiting")
                    .contains("roboco_sandbox_starts_in_flight");
        } finally {
            go.countDown();
            threads.shutdownNow();
            for (String agent : agents) {
                api.verb(agent, "release_sandbox", "{}");
            }
        }
    }

    @Test
    void aStartThatWaitsPastTheBoundIsARetryableInvalidStateWithItsPlaceAndStartsNothing() throws Exception {
        InProcessServer s = STRICT.server();
        ApiClient api = s.api;
        api.working("holder", "single", "[\"postgres\"]");
        api.working("late", "single", "[\"postgres\"]");
        Gate holderStart = s.runtime.parkNextStart(
                "holder's start", r -> "holder".equals(r.labels().get(SandboxLabels.AGENT)));
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<ApiClient.Reply> holder = threads.submit(() -> api.requestSandbox("holder"));
            holderStart.awaitParked(Duration.ofSeconds(60)); // holds the one turn

            ApiClient.Reply late = api.requestSandbox("late");

            assertThat(late.json())
                    .as(late.toString())
                    .containsEntry("ok", false)
                    .containsEntry("error", "invalid_state")
                    .containsEntry("retryable", true);
            assertThat((String) late.json().get("reason"))
                    .contains("agent late")
                    .contains("for its turn to start a container")
                    .contains("position 1 of 1 in the start queue")
                    .contains("estimated wait about");
            assertThat(late.json())
                    .as("where it stood, as envelope fields")
                    .containsEntry("queue_position", 1)
                    .containsEntry("queue_length", 1)
                    .containsKey("estimated_wait_seconds");
            assertThat(s.runtime.list(Map.of(SandboxLabels.AGENT, "late")))
                    .as("the late start never reached the daemon")
                    .isEmpty();
            holderStart.open();
            ApiClient.Reply served = holder.get(5, TimeUnit.MINUTES);
            assertThat(served.ok()).as(served.toString()).isTrue();
            assertThat(api.requestSandbox("late").ok())
                    .as("retried once the turn is free")
                    .isTrue();
        } finally {
            holderStart.open();
            threads.shutdownNow();
            api.verb("holder", "release_sandbox", "{}");
            api.verb("late", "release_sandbox", "{}");
        }
    }

    @Test
    void anOwnerPastItsShareOfTheQueueIsAnsweredAtOnceAndLeavesNothingRunning() throws Exception {
        InProcessServer s = STRICT.server();
        ApiClient api = s.api;
        api.working("hog-holder", "single", "[\"postgres\"]");
        api.working("hog", "set", "[\"postgres\",\"redis\"]");
        Gate holderStart = s.runtime.parkNextStart(
                "hog-holder's start", r -> "hog-holder".equals(r.labels().get(SandboxLabels.AGENT)));
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<ApiClient.Reply> holder = threads.submit(() -> api.requestSandbox("hog-holder"));
            holderStart.awaitParked(Duration.ofSeconds(60));

            // hog's two services both need a turn: one waits (its one place), the other is refused at once.
            ApiClient.Reply hog = api.requestSandbox("hog");

            assertThat(hog.json())
                    .as(hog.toString())
                    .containsEntry("ok", false)
                    .containsEntry("error", "invalid_state")
                    .containsEntry("retryable", true);
            assertThat((String) hog.json().get("reason"))
                    .contains("was not queued to start")
                    .contains("at most 1 per owner");
            assertThat(hog.json()).containsKeys("queue_position", "queue_length", "estimated_wait_seconds");
            assertThat(s.server.startQueue().snapshot().refused()).isPositive();
            holderStart.open();
            assertThat(holder.get(5, TimeUnit.MINUTES).ok()).isTrue();
            assertThat(s.runtime.list(Map.of(SandboxLabels.AGENT, "hog")))
                    .as("the refused set left no container")
                    .isEmpty();
        } finally {
            holderStart.open();
            threads.shutdownNow();
            api.verb("hog-holder", "release_sandbox", "{}");
            api.verb("hog", "release_sandbox", "{}");
        }
    }
}
