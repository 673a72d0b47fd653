package io.roboco.sandbox.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.ActivityHistory.MinutePoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The chart's series as SVG coordinates: where each minute lands, gaps, scales and the words beside it. */
class ActivityChartTest {
    static final Instant NOW = Instant.parse("2026-12-03T13:00:00Z");

    static MinutePoint point(int minutesAgo, int live, long requests, long meanMs, long maxMs) {
        return new MinutePoint(
                NOW.minusSeconds(60L * minutesAgo),
                live,
                requests,
                Duration.ofMillis(meanMs),
                Duration.ofMillis(maxMs));
    }

    @Test
    void noHistoryDrawsNoChart() {
        assertThat(ActivityChart.of(ActivityHistory.NONE).shown()).isFalse();
    }

    @Test
    void theNewestMinuteIsAtTheRightEdgeAndAnHourBeforeAtTheLeft() {
        assertThat(ActivityChart.x(ActivityHistory.MINUTES - 1)).isEqualTo(ActivityChart.RIGHT);
        assertThat(ActivityChart.x(0)).isEqualTo(ActivityChart.LEFT);
        assertThat(ActivityChart.y(0)).isEqualTo(ActivityChart.BOTTOM);
        assertThat(ActivityChart.y(1)).isEqualTo(ActivityChart.TOP);
        assertThat(ActivityChart.y(7)).as("clamped").isEqualTo(ActivityChart.TOP);
    }

    @Test
    void liveSandboxesAreASteppedLineScaledToThePeak() {
        List<MinutePoint> points = List.of(point(2, 1, 0, 0, 0), point(1, 2, 0, 0, 0), point(0, 2, 0, 0, 0));
        ActivityChart chart = ActivityChart.of(points);

        ActivityChart.Panel live = chart.panels().get(0);
        assertThat(live.id()).isEqualTo("activity-live");
        assertThat(live.headline()).isEqualTo("2 now, peak 2");
        assertThat(live.yMax()).isEqualTo("2");
        // each minute a level up to its own x: minute 57 (x 532.8) at 1 of peak 2 (y 58.0) from minute 56 (x 524.3),
        // then 2 (the top, y 12.0) through minute 58 and the current one at the right edge
        assertThat(live.path()).isEqualTo("M524.3 58.0 H532.8 V12.0 H541.4 H550.0");
        assertThat(chart.liveNow()).isEqualTo(2);
    }

    @Test
    void latencyIsTheMeanJoinedOverConsecutiveMinutesWithTheSlowestAsRings() {
        List<MinutePoint> points = new ArrayList<>();
        points.add(point(10, 1, 2, 100, 400)); // a gap follows
        for (int ago = 9; ago > 2; ago--) {
            points.add(point(ago, 1, 0, 0, 0));
        }
        points.add(point(2, 1, 1, 200, 200));
        points.add(point(1, 1, 1, 300, 300));
        points.add(point(0, 1, 0, 0, 0));
        ActivityChart chart = ActivityChart.of(points);

        ActivityChart.Panel latency = chart.panels().get(1);
        assertThat(latency.id()).isEqualTo("activity-latency");
        assertThat(chart.requests()).isEqualTo(4);
        assertThat(latency.headline()).isEqualTo("4 granted requests, mean 175 ms, slowest 400 ms");
        assertThat(latency.yMax()).isEqualTo("400 ms");
        // scale: the slowest (400 ms) is the top; means 100 → y 81.0, 200 → 58.0, 300 → 35.0
        // minutes 49, 57 and 58 at x 464.2, 532.8, 541.4; the lone minute 49 is a dot, 57-58 a line
        assertThat(latency.path()).isEqualTo("M464.2 81.0 M532.8 58.0 L541.4 35.0");
        assertThat(latency.dots())
                .containsExactly(
                        new ActivityChart.Dot("464.2", "81.0"),
                        new ActivityChart.Dot("532.8", "58.0"),
                        new ActivityChart.Dot("541.4", "35.0"));
        assertThat(latency.rings())
                .containsExactly(
                        new ActivityChart.Dot("464.2", "12.0"),
                        new ActivityChart.Dot("532.8", "58.0"),
                        new ActivityChart.Dot("541.4", "35.0"));
    }

    @Test
    void anHourWithoutRequestsSaysSoAndDrawsNoLatency() {
        ActivityChart chart = ActivityChart.of(List.of(point(0, 0, 0, 0, 0)));
        ActivityChart.Panel latency = chart.panels().get(1);
        assertThat(chart.shown()).isTrue();
        assertThat(latency.headline()).isEqualTo("no granted requests in the last hour");
        assertThat(latency.path()).isEmpty();
        assertThat(latency.dots()).isEmpty();
        assertThat(chart.panels().get(0).headline()).isEqualTo("0 now, peak 0");
    }

    @Test
    void durationsReadAsMillisecondsUnderASecondElseSeconds() {
        assertThat(ActivityChart.format(Duration.ofMillis(85))).isEqualTo("85 ms");
        assertThat(ActivityChart.format(Duration.ofMillis(2140))).isEqualTo("2.1 s");
    }
}
