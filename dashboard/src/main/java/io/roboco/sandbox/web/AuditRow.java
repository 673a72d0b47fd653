package io.roboco.sandbox.web;

/** An audit record as the page shows it: time formatted, services joined. A record never carries a credential. */
public record AuditRow(
        String time,
        String agent,
        String project,
        String verb,
        String decision,
        String reason,
        String services,
        long durationMillis) {}
