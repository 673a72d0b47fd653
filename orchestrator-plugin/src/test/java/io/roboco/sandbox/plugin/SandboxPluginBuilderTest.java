package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.UnknownNameException;
import org.junit.jupiter.api.Test;

/** What the builder refuses before it connects to anything (its wiring is tested in testkit and run in EmbeddingExampleIT). */
class SandboxPluginBuilderTest {
    @Test
    void refusesAMissingInstanceIdSayingWhatToSet() {
        assertThatThrownBy(() -> SandboxPlugin.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("instanceId(\"orchestrator-1\")");
        assertThatThrownBy(() -> SandboxPlugin.builder().instanceId(" ").build())
                .hasMessageContaining("instanceId(");
    }

    @Test
    void refusesAMalformedInstanceIdOrAnImageOfAnUnknownEngine() {
        assertThatThrownBy(() -> SandboxPlugin.builder().instanceId("has space").build())
                .hasMessageContaining("instance id 'has space' must be 1-64 letters, digits");
        assertThatThrownBy(() -> SandboxPlugin.builder()
                        .instanceId("orch-1")
                        .image("mysql", "mysql:8")
                        .build())
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("mysql")
                .hasMessageContaining("postgres");
        assertThatThrownBy(() -> SandboxPlugin.builder().image("postgres", " "))
                .hasMessageContaining("image for engine 'postgres' is blank");
    }
}
