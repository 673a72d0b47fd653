package io.roboco.sandbox.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.ledger.ContainerLedger.Reason;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ContainerLedgerTest {
    private final ContainerLedger ledger =
            new ContainerLedger(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC));

    @Test
    void aContainerMovesFromReasonToReasonAndIsOwnedThroughout() {
        ledger.enter("c1", Reason.IN_FLIGHT, "dev-1");
        assertThat(ledger.move("c1", Reason.PENDING, "dev-1")).isTrue();
        assertThat(ledger.move("c1", Reason.HELD, "dev-1")).isTrue();

        assertThat(ledger.owns("c1")).isTrue();
        assertThat(ledger.entry("c1")).hasValueSatisfying(e -> {
            assertThat(e.reason()).isEqualTo(Reason.HELD);
            assertThat(e.owner()).isEqualTo("dev-1");
            assertThat(e.since()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        });
        assertThat(ledger.ids(Reason.HELD)).containsExactly("c1");
        assertThat(ledger.ids(Reason.PENDING)).isEmpty();
    }

    @Test
    void aStruckContainerNeverComesBackByALateMove() {
        ledger.enter("c1", Reason.IN_FLIGHT, "dev-1");
        ledger.strike("c1");

        assertThat(ledger.move("c1", Reason.PENDING, "dev-1")).isFalse();
        assertThat(ledger.owns("c1")).isFalse();
        assertThat(ledger.ownedIds()).isEmpty();
    }

    @Test
    void strikeAllTakesOnlyThatOwnersContainersForThatReason() {
        ledger.enter("a", Reason.PENDING, "dev-1");
        ledger.enter("b", Reason.PENDING, "dev-2");
        ledger.enter("c", Reason.HELD, "dev-1");
        ledger.enter("p", Reason.POOLED, "postgres@img");

        assertThat(ledger.strikeAll(Reason.PENDING, "dev-1")).containsExactly("a");

        assertThat(ledger.ownedIds()).containsExactlyInAnyOrder("b", "c", "p");
    }

    @Test
    void theJanitorsViewIsEveryContainerWhateverTheReason() {
        ledger.enter("a", Reason.IN_FLIGHT, "dev-1");
        ledger.enter("b", Reason.POOLED, "postgres@img");
        ledger.enter("c", Reason.CLAIMED, "dev-2");
        OwnedContainers view = ledger;

        assertThat(view.ownedIds()).containsExactlyInAnyOrder("a", "b", "c");
    }
}
