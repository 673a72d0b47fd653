package io.roboco.sandbox.engine.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.UnknownNameException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Redis checkpoints against a real container: every database number and every key's expiry come back at a rewind, on
 * the agent's still-open connection; a prepared rewind that is undone after its switch leaves the data as it was; the
 * agent may not run the DEBUG that loads a checkpoint.
 */
class RedisCheckpointsIT {
    private static final Checkpoints CHECKPOINTS =
            new RedisEngine().checkpoints().orElseThrow();

    @BeforeAll
    static void image() {
        EngineImages.requireLocal(RedisEngineIT.IMAGE);
    }

    @Test
    void rewindBringsBackEveryDatabaseAndExpiryOnTheOpenConnection() throws Exception {
        RedisEngine engine = new RedisEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, RedisEngineIT.IMAGE)) {
            engine.prepareAgent(sandbox.target);
            try (Jedis agent = RedisEngine.connect(sandbox.target, Login.AGENT)) {
                agent.set("plain", "1");
                agent.psetex("expiring", 600_000, "soon");
                agent.select(3);
                agent.hset("h", "f", "v");
                agent.select(0);

                Checkpoints.Result checkpoint = CHECKPOINTS.checkpoint(sandbox.target, "before");
                assertThat(checkpoint.sizeBytes()).isPositive();
                assertThat(CHECKPOINTS.list(sandbox.target))
                        .extracting(Checkpoints.Checkpoint::name)
                        .containsExactly("before");

                agent.set("plain", "changed");
                agent.del("expiring");
                agent.set("new", "x");
                agent.select(3);
                agent.flushDB();
                agent.select(0);

                CHECKPOINTS.rewind(sandbox.target, "before");
                assertThat(agent.get("plain")).isEqualTo("1");
                assertThat(agent.get("new")).isNull();
                assertThat(agent.pttl("expiring")).isBetween(1L, 600_000L);
                agent.select(3);
                assertThat(agent.hget("h", "f")).isEqualTo("v");
                agent.select(0);

                assertThatThrownBy(
                                () -> agent.sendCommand((ProtocolCommand) () -> SafeEncoder.encode("DEBUG"), "RELOAD"))
                        .isInstanceOf(JedisDataException.class)
                        .hasMessageContaining("NOPERM");
            }
        }
    }

    @Test
    void anUndoneSwitchLeavesTheDataAsItWasAndAnUnknownNameListsTheKnown() throws Exception {
        RedisEngine engine = new RedisEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, RedisEngineIT.IMAGE)) {
            engine.prepareAgent(sandbox.target);
            try (Jedis agent = RedisEngine.connect(sandbox.target, Login.AGENT)) {
                agent.set("k", "checkpointed");
                CHECKPOINTS.checkpoint(sandbox.target, "one");
                agent.set("k", "later");
                try (Checkpoints.PreparedRewind prepared = CHECKPOINTS.prepareRewind(sandbox.target, "one")) {
                    assertThat(agent.get("k")).as("prepared, not switched").isEqualTo("later");
                    prepared.commit();
                    assertThat(agent.get("k")).isEqualTo("checkpointed");
                    prepared.undo();
                }
                assertThat(agent.get("k")).isEqualTo("later");
                assertThatThrownBy(() -> CHECKPOINTS.prepareRewind(sandbox.target, "two"))
                        .isInstanceOf(UnknownNameException.class)
                        .hasMessageContaining("there are: one");
                CHECKPOINTS.delete(sandbox.target, "one");
                assertThat(CHECKPOINTS.list(sandbox.target)).isEmpty();
            }
        }
    }
}
