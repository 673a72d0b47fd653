package io.roboco.sandbox.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.testkit.SettingsStoreContract;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** testkit's {@link SettingsStoreContract} against the product's in-memory store (the embedding default). */
class InMemorySettingsStoreTest extends SettingsStoreContract {
    @Override
    protected SettingsStore createStore() {
        return new InMemorySettingsStore();
    }

    @Test
    void auditKeepsOnlyTheNewestRecordsUpToCapacity() {
        InMemorySettingsStore small = new InMemorySettingsStore(2);
        for (int i = 0; i < 3; i++) {
            small.append(new AuditRecord(Instant.EPOCH.plusSeconds(i), "a", "p", "v", "granted", "", List.of(), i));
        }
        assertThat(small.recent(null, null, 10))
                .extracting(AuditRecord::durationMillis)
                .containsExactly(2L, 1L);
    }

    @Test
    void refusesZeroCapacity() {
        assertThatThrownBy(() -> new InMemorySettingsStore(0)).hasMessageContaining("auditCapacity");
    }
}
