package io.roboco.sandbox.settings;

import io.roboco.sandbox.request.BadRequest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A position in the audit trail: the time (to the microsecond) and store id of the last record a page
 * returned. Its text form {@code <epoch micros>.<id>} is opaque to callers.
 */
public record AuditCursor(long epochMicros, long id) {

    public static AuditCursor after(Instant time, long id) {
        return new AuditCursor(ChronoUnit.MICROS.between(Instant.EPOCH, time), id);
    }

    /** @throws BadRequest when {@code text} is not a cursor this server handed out */
    public static AuditCursor parse(String text) {
        int dot = text.indexOf('.');
        try {
            if (dot > 0 && text.length() <= 40) {
                return new AuditCursor(Long.parseLong(text.substring(0, dot)), Long.parseLong(text.substring(dot + 1)));
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new BadRequest("cursor is not one this server handed out; start again without a cursor");
    }

    public Instant time() {
        return Instant.EPOCH.plus(epochMicros, ChronoUnit.MICROS);
    }

    @Override
    public String toString() {
        return epochMicros + "." + id;
    }
}
