package io.roboco.sandbox.faults;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests in a loop while a second thread {@code docker kill}s random sandbox containers: no dead
 * endpoint is ever handed out. The killer aims at containers whose credentials were already handed
 * out (sandboxes in use), every 0.8-2.3 s.
 *
 * <p>How a grant is judged: right after the answer, its credentials are used. If they work, fine.
 * If they fail, the container behind the port is looked up; the failure is the server's fault (a
 * dead endpoint handed out) when that container's kill had <em>completed before the request was
 * sent</em> (the server's liveness check had every chance to see it), or when no kill of it was even
 * started before the probe ended (nothing explains it). A kill that started while the request was
 * in flight or after the answer is a race the server cannot win; those are counted separately.
 */
class KillStormIT {
    private static final List<String> AGENTS = List.of("storm-a", "storm-b", "storm-c");
    private static final int MAX_REQUESTS = 60;
    private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(100);
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    private final Map<String, Long> killStarted = new ConcurrentHashMap<>();
    private final Map<String, Long> killDone = new ConcurrentHashMap<>();
    /** Containers behind credentials already handed out: the killer's targets (sandboxes in use, not ones still starting). */
    private final Set<String> handedOut = ConcurrentHashMap.newKeySet();

    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void noDeadEndpointIsHandedOutWhileContainersAreKilledAtRandom() throws Exception {
        ApiClient api = SERVER.api();
        for (String agent : AGENTS) {
            api.working(agent, "storm", "[\"postgres\",\"redis\"]");
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger kills = new AtomicInteger();
        Thread killer = new Thread(() -> killLoop(stop, kills), "storm-killer");
        int requests = 0;
        int granted = 0;
        int verified = 0;
        int retryable = 0;
        int raced = 0;
        List<String> dead = Collections.synchronizedList(new ArrayList<>());
        long begin = System.nanoTime();
        killer.start();
        try {
            while (requests < MAX_REQUESTS && System.nanoTime() - begin < MAX_NANOS) {
                String agent = AGENTS.get(requests % AGENTS.size());
                long sent = System.nanoTime();
                ApiClient.Reply r = api.requestSandbox(agent);
                requests++;
                if (!r.ok()) {
                    Map<String, Object> json = r.json();
                    assertThat(json).as("%s", r).containsEntry("error", "invalid_state").containsEntry("retryable", true);
                    if (retryable++ < 3) {
                        System.out.println("KillStormIT retryable answer: " + r);
                    }
                    continue;
                }
                granted++;
                for (Map.Entry<String, Map<String, String>> g : r.grants().entrySet()) {
                    String granted0 = SERVER.server().runtime.containerOnPort(Integer.parseInt(portOf(g.getKey(), g.getValue())));
                    if (granted0 != null) {
                        handedOut.add(granted0);
                    }
                    String failure = Probe.tryUse(g.getKey(), g.getValue());
                    long probed = System.nanoTime();
                    if (failure == null) {
                        verified++;
                        continue;
                    }
                    String id = SERVER.server().runtime.containerOnPort(Integer.parseInt(portOf(g.getKey(), g.getValue())));
                    Long started = id == null ? null : killStarted.get(id);
                    Long done = id == null ? null : killDone.get(id);
                    if (done != null && done < sent) {
                        dead.add(agent + " " + g.getKey() + " " + id + ": killed " + TimeUnit.NANOSECONDS.toMillis(sent - done)
                                + " ms before the request was sent; " + failure);
                    } else if (started != null && started < probed) {
                        raced++;
                    } else {
                        dead.add(agent + " " + g.getKey() + " " + id + ": failed with no kill to explain it; " + failure);
                    }
                }
            }
        } finally {
            stop.set(true);
            killer.join(TimeUnit.SECONDS.toMillis(30));
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - begin);
        Fixtures.figure("KillStormIT dead endpoints handed out: " + dead.size() + " (requests " + requests + ", granted " + granted
                + ", service credentials verified working " + verified + ", killed while the request was in flight " + raced
                + ", retryable invalid_state " + retryable + ", containers killed " + kills.get() + ", " + seconds + " s)");
        assertThat(dead).isEmpty();
        assertThat(kills.get()).as("the storm actually killed containers").isGreaterThan(3);
        assertThat(verified).as("grants that worked").isGreaterThan(granted / 2);
    }

    private void killLoop(AtomicBoolean stop, AtomicInteger kills) {
        String instance = SERVER.server().instanceId();
        long begin = System.nanoTime();
        while (!stop.get() && System.nanoTime() - begin < MAX_NANOS + TimeUnit.SECONDS.toNanos(10)) {
            try {
                Thread.sleep(800 + ThreadLocalRandom.current().nextInt(1500));
                List<String> running = new ArrayList<>(Fixtures.runningOf(instance));
                running.retainAll(handedOut);
                if (running.isEmpty()) {
                    continue;
                }
                String victim = running.get(ThreadLocalRandom.current().nextInt(running.size()));
                killStarted.putIfAbsent(victim, System.nanoTime());
                LocalImages.docker("kill", victim);
                killDone.putIfAbsent(victim, System.nanoTime());
                kills.incrementAndGet();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                System.err.println("killer: " + e.getMessage());
            }
        }
    }

    private static String portOf(String service, Map<String, String> env) {
        return service.equals("postgres") ? env.get("ROBOCO_TEST_DB_PORT") : env.get("ROBOCO_TEST_REDIS_PORT");
    }
}
