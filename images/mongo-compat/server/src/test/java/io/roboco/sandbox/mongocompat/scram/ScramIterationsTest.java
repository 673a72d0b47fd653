package io.roboco.sandbox.mongocompat.scram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** mongod's {@code scramIterationCount} and {@code scramSHA256IterationCount}: defaults, parsing and minimums. */
class ScramIterationsTest {
    @Test
    void mongodsDefaultsUntilAParameterSetsThem() {
        assertThat(ScramIterations.DEFAULTS.of(ScramMechanism.SCRAM_SHA_1)).isEqualTo(10_000);
        assertThat(ScramIterations.DEFAULTS.of(ScramMechanism.SCRAM_SHA_256)).isEqualTo(15_000);

        ScramIterations set = ScramIterations.DEFAULTS
                .with("scramSHA256IterationCount=4096")
                .orElseThrow()
                .with("scramIterationCount=5000")
                .orElseThrow();

        assertThat(set).isEqualTo(new ScramIterations(5_000, 4_096));
        assertThat(ScramIterations.DEFAULTS.with("maxLogSizeKB=10")).isEmpty();
        assertThat(ScramIterations.DEFAULTS.with("scramIterationCount")).isEmpty();
    }

    @Test
    void belowMongodsMinimumsOrNotANumberIsRefused() {
        assertThatThrownBy(() -> ScramIterations.DEFAULTS.with("scramSHA256IterationCount=4095"))
                .hasMessageContaining("at least 4096");
        assertThatThrownBy(() -> ScramIterations.DEFAULTS.with("scramIterationCount=4999"))
                .hasMessageContaining("at least 5000");
        assertThatThrownBy(() -> ScramIterations.DEFAULTS.with("scramIterationCount=many"))
                .hasMessageContaining("must be a number");
    }

    @Test
    void aNewCredentialCarriesTheCountAndStillVerifies() throws Exception {
        ScramCredential credential =
                ScramCredential.forMongoUser(ScramMechanism.SCRAM_SHA_256, "agent_a", "pw-a-0123456789", 4_096);
        assertThat(credential.iterations()).isEqualTo(4_096);

        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256, n -> credential);
        ScramClient client = new ScramClient(
                ScramMechanism.SCRAM_SHA_256,
                "agent_a",
                ScramMechanism.SCRAM_SHA_256.mongoPassword("agent_a", "pw-a-0123456789"),
                ScramServer.randomNonce());
        client.verify(server.finish(client.respond(server.start(client.first()))));
    }
}
