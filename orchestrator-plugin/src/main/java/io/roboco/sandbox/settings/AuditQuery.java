package io.roboco.sandbox.settings;

/**
 * One page of the audit trail, newest first.
 *
 * @param agent    only this agent's records (null or blank: all)
 * @param decision only this decision (null or blank: all)
 * @param limit    at most this many records (1 or more)
 * @param cursor   the {@link AuditPage#nextCursor()} of the previous page, or null for the newest
 */
public record AuditQuery(String agent, String decision, int limit, String cursor) {
    public AuditQuery {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        agent = agent == null || agent.isBlank() ? null : agent;
        decision = decision == null || decision.isBlank() ? null : decision;
        cursor = cursor == null || cursor.isBlank() ? null : cursor;
    }
}
