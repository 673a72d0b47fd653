package io.roboco.sandbox.plugin;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The server's own recent numbers, one point per minute over the last hour, for the operator's pages: how many
 * sandboxes were live and how long granted requests took to credentials. The server's metrics keep it (a ring of 60
 * minutes); an embedding without them hands the pages {@link #NONE}.
 */
public interface ActivityHistory {
    /** How many minutes the history spans. */
    int MINUTES = 60;

    /** No history: the pages show no chart. */
    ActivityHistory NONE = List::of;

    /**
     * The minutes of the last hour this history has seen, oldest first, the current minute last; at most
     * {@link #MINUTES}, fewer in the first hour after a start.
     */
    List<MinutePoint> lastHour();

    /**
     * One minute.
     *
     * @param minute        the minute's start
     * @param liveSandboxes sandboxes live (agents' sets and named ones), as last seen in that minute or before it
     * @param requests      granted requests in that minute (request_sandbox and named creates)
     * @param meanLatency   their mean time to credentials (zero when there were none)
     * @param maxLatency    the slowest of them (zero when there were none)
     */
    record MinutePoint(Instant minute, int liveSandboxes, long requests, Duration meanLatency, Duration maxLatency) {
        public MinutePoint {
            Objects.requireNonNull(minute, "minute");
            Objects.requireNonNull(meanLatency, "meanLatency");
            Objects.requireNonNull(maxLatency, "maxLatency");
        }
    }
}
