package io.roboco.sandbox.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FairShareTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T12:00:00Z"));

    @Test
    void callsOverTheConcurrentLimitAreRefusedUntilOneEnds() {
        FairShare share = new FairShare(2, 100, clock);
        FairShare.Admission a = share.tryAcquire("dev-1");
        FairShare.Admission b = share.tryAcquire("dev-1");
        FairShare.Admission c = share.tryAcquire("dev-1");
        assertThat(a.permit()).isPresent();
        assertThat(b.permit()).isPresent();
        assertThat(c.refusal()).hasValueSatisfying(r -> {
            assertThat(r.reason())
                    .contains("ROBOCO_SANDBOX_MCP_MAX_CONCURRENT_CALLS=2")
                    .contains("retry");
            assertThat(r.retryAfterSeconds()).isEqualTo(1);
        });
        a.permit().get().close();
        a.permit().get().close();
        assertThat(share.running("dev-1")).isEqualTo(1);
        assertThat(share.tryAcquire("dev-1").permit()).isPresent();
    }

    @Test
    void anotherAgentsShareIsItsOwn() {
        FairShare share = new FairShare(1, 1, clock);
        assertThat(share.tryAcquire("dev-1").permit()).isPresent();
        assertThat(share.tryAcquire("dev-1").refusal()).isPresent();
        assertThat(share.tryAcquire("dev-2").permit()).isPresent();
    }

    @Test
    void callsPerMinuteSlideAndSayWhenToRetry() {
        FairShare share = new FairShare(10, 3, clock);
        for (int i = 0; i < 3; i++) {
            share.tryAcquire("dev-1").permit().orElseThrow().close();
            clock.advance(Duration.ofSeconds(10));
        }
        FairShare.Refusal refused = share.tryAcquire("dev-1").refusal().orElseThrow();
        assertThat(refused.reason())
                .contains("ROBOCO_SANDBOX_MCP_CALLS_PER_MINUTE=3")
                .contains("retry in 30 s");
        assertThat(refused.retryAfterSeconds()).isEqualTo(30);
        clock.advance(Duration.ofSeconds(30));
        assertThat(share.tryAcquire("dev-1").permit()).isPresent();
    }
}
