package io.roboco.sandbox.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.provision.ServiceInstance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The whole sandbox's checkpoint over three services held in memory: what the agent finds, and what the answer says,
 * when one service's checkpoint, switch or undo fails.
 */
class SandboxCheckpointsTest {
    private final List<String> calls = new ArrayList<>();

    /** A service's data as one string, checkpoints by name, and scripted failures. */
    private final class MemoryCheckpoints implements Checkpoints {
        final String service;
        String data = "v1";
        final Map<String, String> saved = new HashMap<>();
        boolean failCheckpoint;
        boolean failCommit;
        boolean failUndo;

        MemoryCheckpoints(String service) {
            this.service = service;
        }

        @Override
        public Result checkpoint(ProbeTarget target, String name) {
            if (failCheckpoint) {
                throw new IllegalStateException(service + " disk full, password s3cret");
            }
            saved.put(name, data);
            return new Result(name, 1, 0, 1);
        }

        @Override
        public Result rewind(ProbeTarget target, String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public PreparedRewind prepareRewind(ProbeTarget target, String name) {
            if (!saved.containsKey(name)) {
                throw new UnknownNameException("no checkpoint '" + name + "' in " + service);
            }
            String before = data;
            return new PreparedRewind() {
                @Override
                public Result commit() {
                    if (failCommit) {
                        throw new IllegalStateException(service + " switch failed");
                    }
                    data = saved.get(name);
                    calls.add("commit " + service);
                    return new Result(name, 1, 0, 1);
                }

                @Override
                public void undo() {
                    if (failUndo) {
                        throw new IllegalStateException(service + " undo failed");
                    }
                    data = before;
                    calls.add("undo " + service);
                }

                @Override
                public void finish() {}

                @Override
                public void close() {
                    calls.add("close " + service);
                }
            };
        }

        @Override
        public void delete(ProbeTarget target, String name) {
            saved.remove(name);
        }

        @Override
        public List<Checkpoint> list(ProbeTarget target) {
            return List.of();
        }
    }

    private final MemoryCheckpoints pg = new MemoryCheckpoints("postgres");
    private final MemoryCheckpoints redis = new MemoryCheckpoints("redis");
    private final MemoryCheckpoints mongo = new MemoryCheckpoints("mongo");
    private final SandboxCheckpoints sandbox =
            new SandboxCheckpoints(List.of(member(pg), member(redis), member(mongo)));

    private static SandboxCheckpoints.Member member(MemoryCheckpoints c) {
        Credentials credentials = new Credentials("admin", "adm1n-pw", "agent", "s3cret", "db");
        ServiceInstance instance = new ServiceInstance(
                c.service,
                "image",
                "id-" + c.service,
                c.service,
                new Endpoint("127.0.0.1", 1),
                credentials,
                Set.of(),
                Instant.EPOCH);
        return new SandboxCheckpoints.Member(c.service, instance, c, ProbeTarget.of(instance.endpoint(), credentials));
    }

    private void changeAll() {
        pg.data = redis.data = mongo.data = "v2";
    }

    @Test
    void oneRewindSwitchesEveryServiceAfterPreparingAll() {
        assertThat(sandbox.checkpoint("one")).isInstanceOf(DataOutcome.Done.class);
        changeAll();
        DataOutcome outcome = sandbox.rewind("one");
        assertThat(outcome).isInstanceOf(DataOutcome.Done.class);
        assertThat(List.of(pg.data, redis.data, mongo.data)).containsOnly("v1");
        assertThat(calls)
                .containsExactly(
                        "commit postgres",
                        "commit redis",
                        "commit mongo",
                        "close postgres",
                        "close redis",
                        "close mongo");
    }

    @Test
    void aFailedSwitchUndoesTheSwitchedOnesSoNoneIsRewound() {
        sandbox.checkpoint("one");
        changeAll();
        mongo.failCommit = true;
        DataOutcome outcome = sandbox.rewind("one");
        assertThat(List.of(pg.data, redis.data, mongo.data)).containsOnly("v2");
        assertThat(((DataOutcome.Failed) outcome).reason())
                .isEqualTo("rewind_sandbox failed switching mongo to checkpoint 'one': mongo switch failed;"
                        + " redis, postgres switched back; nothing was rewound");
    }

    @Test
    void aFailedUndoIsReportedNamingWhichServicesHoldTheCheckpoint() {
        sandbox.checkpoint("one");
        changeAll();
        mongo.failCommit = true;
        redis.failUndo = true;
        DataOutcome outcome = sandbox.rewind("one");
        assertThat(List.of(pg.data, redis.data, mongo.data)).containsExactly("v2", "v1", "v2");
        assertThat(((DataOutcome.Failed) outcome).reason())
                .contains(
                        "failed switching mongo",
                        "undoing redis failed: redis undo failed",
                        "rewound to 'one': redis; as before the rewind: postgres, mongo");
    }

    @Test
    void aCheckpointMissingOnOneServiceRewindsNothing() {
        sandbox.checkpoint("one");
        mongo.saved.clear();
        changeAll();
        assertThat(sandbox.rewind("one")).isEqualTo(new DataOutcome.Refused("no checkpoint 'one' in mongo"));
        assertThat(List.of(pg.data, redis.data, mongo.data)).containsOnly("v2");
        assertThat(calls).containsExactly("close postgres", "close redis");
    }

    @Test
    void aCheckpointThatFailsOnOneServiceIsKeptOnNoneAndItsMessageLosesThePasswords() {
        sandbox.checkpoint("one");
        redis.failCheckpoint = true;
        DataOutcome outcome = sandbox.checkpoint("one");
        assertThat(pg.saved).isEmpty();
        assertThat(mongo.saved).isEmpty();
        assertThat(((DataOutcome.Failed) outcome).reason())
                .isEqualTo("checkpoint_sandbox failed on redis: redis disk full, password <redacted>; checkpoint 'one'"
                        + " was removed from postgres, redis, mongo (no service keeps one of that name)");
    }
}
