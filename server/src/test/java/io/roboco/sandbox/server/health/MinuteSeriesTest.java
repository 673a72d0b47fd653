package io.roboco.sandbox.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.ActivityHistory.MinutePoint;
import io.roboco.sandbox.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-minute ring of the last hour behind the Sandboxes page's chart, on a clock the test moves. */
class MinuteSeriesTest {
    static final Instant START = Instant.parse("2026-12-03T12:00:20Z");

    final MutableClock clock = new MutableClock(START);
    final MinuteSeries series = new MinuteSeries(clock);

    @Test
    void aMinutesRequestsGiveItsCountMeanAndSlowest() {
        series.request(Duration.ofMillis(100));
        series.request(Duration.ofMillis(300));
        series.live(2);

        List<MinutePoint> points = series.lastHour();
        assertThat(points).hasSize(1);
        MinutePoint now = points.get(0);
        assertThat(now.minute()).isEqualTo(Instant.parse("2026-12-03T12:00:00Z"));
        assertThat(now.requests()).isEqualTo(2);
        assertThat(now.meanLatency()).isEqualTo(Duration.ofMillis(200));
        assertThat(now.maxLatency()).isEqualTo(Duration.ofMillis(300));
        assertThat(now.liveSandboxes()).isEqualTo(2);
    }

    @Test
    void aMinuteWithoutACountShowsTheLastOneSeenAndNoRequests() {
        series.live(3);
        series.request(Duration.ofSeconds(2));
        clock.advance(Duration.ofMinutes(3));

        List<MinutePoint> points = series.lastHour();
        assertThat(points).extracting(MinutePoint::liveSandboxes).containsExactly(3, 3, 3, 3);
        assertThat(points).extracting(MinutePoint::requests).containsExactly(1L, 0L, 0L, 0L);
        assertThat(points.get(3).meanLatency()).isEqualTo(Duration.ZERO);
        assertThat(points.get(3).maxLatency()).isEqualTo(Duration.ZERO);
        assertThat(points)
                .extracting(MinutePoint::minute)
                .containsExactly(
                        Instant.parse("2026-12-03T12:00:00Z"),
                        Instant.parse("2026-12-03T12:01:00Z"),
                        Instant.parse("2026-12-03T12:02:00Z"),
                        Instant.parse("2026-12-03T12:03:00Z"));
    }

    @Test
    void afterAnHourTheRingHoldsSixtyMinutesAndForgetsTheOldOnes() {
        for (int minute = 0; minute < 150; minute++) {
            if (minute > 0) {
                clock.advance(Duration.ofMinutes(1));
            }
            series.live(minute);
            series.request(Duration.ofMillis(minute + 1));
        }

        List<MinutePoint> points = series.lastHour();
        assertThat(points).hasSize(ActivityHistory.MINUTES);
        assertThat(points.get(0).liveSandboxes()).isEqualTo(90);
        assertThat(points.get(59).liveSandboxes()).isEqualTo(149);
        assertThat(points).allSatisfy(p -> assertThat(p.requests()).isEqualTo(1));
        assertThat(points.get(0).maxLatency()).isEqualTo(Duration.ofMillis(91));
        assertThat(points.get(59).meanLatency()).isEqualTo(Duration.ofMillis(150));
    }

    @Test
    void aQuietHourLeavesNoStaleRequestsAndCarriesTheLastCount() {
        series.live(4);
        series.request(Duration.ofMillis(50));
        clock.advance(Duration.ofMinutes(90)); // every slot's minute is now more than an hour old

        List<MinutePoint> points = series.lastHour();
        assertThat(points).hasSize(ActivityHistory.MINUTES);
        assertThat(points).allSatisfy(p -> {
            assertThat(p.requests()).isZero();
            assertThat(p.liveSandboxes()).isEqualTo(4);
        });

        series.live(1);
        assertThat(series.lastHour().get(59).liveSandboxes()).isEqualTo(1);
        assertThat(series.lastHour().get(58).liveSandboxes()).isEqualTo(4);
    }

    @Test
    void nothingSeenYetIsZeroLive() {
        assertThat(series.lastHour()).singleElement().satisfies(p -> {
            assertThat(p.liveSandboxes()).isZero();
            assertThat(p.requests()).isZero();
        });
    }
}
