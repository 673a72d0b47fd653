package io.roboco.sandbox.provision;

/**
 * Where a container start stood in the start queue ({@link StartQueue}) when it was refused (it waited its bound, or
 * its owner already had its share waiting): what a retryable refusal carries as envelope fields besides its reason.
 *
 * @param position             1-based place in the queue (the place it would have taken, for a start not queued)
 * @param length               starts waiting then (counting this one)
 * @param startingNow          starts holding a turn then
 * @param limit                turns at most at once
 * @param estimatedWaitSeconds position × the mean turn ÷ the limit, at least 1
 */
public record QueueStanding(int position, int length, int startingNow, int limit, long estimatedWaitSeconds) {}
