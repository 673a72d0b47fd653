package io.roboco.sandbox.faults;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * release_sandbox racing request_sandbox for the same agent: a grant never carries credentials of
 * a container whose removal had begun when the grant was decided.
 *
 * <p>The server-side moments are recorded exactly: the recording runtime notes when the removal of
 * each container began; the recording store notes when each grant was decided (its audit record is
 * written after the manager answers and before the HTTP reply). A granted credential that fails
 * when used right after the answer is fine only if its container's removal began after that moment.
 */
class ReleaseRaceIT {
    private static final String AGENT = "race-a";
    private static final int MAX_REQUESTS = 40;
    private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(90);
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aGrantNeverCarriesCredentialsOfAContainerBeingRemoved() throws Exception {
        ApiClient api = SERVER.api();
        api.working(AGENT, "race", "[\"postgres\",\"redis\"]");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger releases = new AtomicInteger();
        List<String> releaseFailures = Collections.synchronizedList(new ArrayList<>());
        Thread releaser = new Thread(() -> {
            long begin = System.nanoTime();
            while (!stop.get() && System.nanoTime() - begin < MAX_NANOS + TimeUnit.SECONDS.toNanos(10)) {
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(50, 1200));
                } catch (InterruptedException e) {
                    return;
                }
                ApiClient.Reply r = api.verb(AGENT, "release_sandbox", "{}");
                if (!r.ok()) {
                    releaseFailures.add(r.toString());
                }
                releases.incrementAndGet();
            }
        }, "race-releaser");

        int requests = 0;
        int granted = 0;
        int verified = 0;
        int releasedAfterAnswer = 0;
        int other = 0;
        List<String> violations = new ArrayList<>();
        long begin = System.nanoTime();
        releaser.start();
        try {
            while (requests < MAX_REQUESTS && System.nanoTime() - begin < MAX_NANOS) {
                ApiClient.Reply r = api.requestSandbox(AGENT);
                requests++;
                if (!r.ok()) {
                    other++;
                    assertThat(r.json()).as("%s", r).containsEntry("retryable", true);
                    continue;
                }
                granted++;
                Long decided = SERVER.server().grantDecidedAt.get(AGENT).poll();
                assertThat(decided).as("grant decision recorded").isNotNull();
                for (Map.Entry<String, Map<String, String>> g : r.grants().entrySet()) {
                    String port = g.getKey().equals("postgres") ? g.getValue().get("ROBOCO_TEST_DB_PORT") : g.getValue().get("ROBOCO_TEST_REDIS_PORT");
                    String id = SERVER.server().runtime.containerOnPort(Integer.parseInt(port));
                    Long removal = SERVER.server().runtime.removalStarted(id);
                    if (removal != null && removal < decided) {
                        violations.add(g.getKey() + " " + id + ": removal began " + TimeUnit.NANOSECONDS.toMillis(decided - removal)
                                + " ms before the grant was decided");
                        continue;
                    }
                    String failure = Probe.tryUse(g.getKey(), g.getValue());
                    if (failure == null) {
                        verified++;
                    } else if (SERVER.server().runtime.removalStarted(id) != null) {
                        releasedAfterAnswer++;
                    } else {
                        violations.add(g.getKey() + " " + id + ": does not work and was never removed: " + failure);
                    }
                }
            }
        } finally {
            stop.set(true);
            releaser.join(TimeUnit.SECONDS.toMillis(30));
        }
        Fixtures.figure("ReleaseRaceIT grants carrying a container being removed: " + violations.size() + " (requests " + requests
                + ", granted " + granted + ", service credentials verified working " + verified + ", released after the answer "
                + releasedAfterAnswer + ", not granted " + other + ", releases " + releases.get() + ")");
        assertThat(violations).isEmpty();
        assertThat(releaseFailures).isEmpty();
        assertThat(releases.get()).isGreaterThan(5);
        assertThat(granted).isGreaterThan(5);
        api.verb(AGENT, "release_sandbox", "{}");
        assertThat(Fixtures.containersOf(SERVER.server().instanceId())).as("nothing left after the last release").isEmpty();
    }
}
