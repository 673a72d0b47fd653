package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.settings.SettingsStoreException;
import org.junit.jupiter.api.Test;

class FakeSettingsStoreTest extends SettingsStoreContract {
    @Override
    protected SettingsStore createStore() {
        return new FakeSettingsStore();
    }

    @Test
    void agentReadsFailAfterTheScriptedSuccessesUntilHealed() {
        FakeSettingsStore fake = new FakeSettingsStore();
        fake.saveAgent(new Agent("dev-1", "developer", null, null));
        fake.failAgentReadsAfter(1);
        assertThat(fake.findAgent("dev-1")).isPresent();
        assertThatThrownBy(() -> fake.findAgent("dev-1"))
                .isInstanceOf(SettingsStoreException.class)
                .hasMessage(FakeSettingsStore.OUTAGE);
        assertThatThrownBy(() -> fake.findAgent("dev-1")).isInstanceOf(SettingsStoreException.class);
        assertThat(fake.agentReads()).isEqualTo(3);
        assertThat(fake.allAgents()).as("only look-ups by slug are scripted").hasSize(1);
        fake.heal();
        assertThat(fake.findAgent("dev-1")).isPresent();
    }

    @Test
    void failingAfterZeroFailsTheNextRead() {
        FakeSettingsStore fake = new FakeSettingsStore();
        fake.failAgentReadsAfter(0);
        assertThatThrownBy(() -> fake.findAgent("any")).isInstanceOf(SettingsStoreException.class);
    }
}
