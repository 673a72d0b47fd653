package io.roboco.sandbox.settings;

import java.util.List;

/**
 * Records of one {@link AuditQuery}, newest first, and the cursor of the next (older) page: null
 * when there is none. A cursor is a position, not an offset: records appended meanwhile never shift
 * a page, so paging through the trail returns each record exactly once.
 */
public record AuditPage(List<AuditRecord> records, String nextCursor) {
    public AuditPage {
        records = List.copyOf(records);
    }
}
