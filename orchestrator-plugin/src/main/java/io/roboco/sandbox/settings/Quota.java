package io.roboco.sandbox.settings;

/**
 * The limits a reservation is checked against, inside the same transaction as its insert.
 *
 * @param perOwner   live sandboxes one owner may hold (at least 1)
 * @param perProject live sandboxes one project may hold; 0 for no project limit
 */
public record Quota(int perOwner, int perProject) {
    public Quota {
        if (perOwner < 1) {
            throw new IllegalArgumentException("the per-owner quota must be at least 1, was " + perOwner);
        }
        if (perProject < 0) {
            throw new IllegalArgumentException("the per-project quota must be 0 (none) or more, was " + perProject);
        }
    }
}
