package io.roboco.sandbox.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one-paragraph text of a {@code diff_data} answer for an MCP client: per service the changed parts with their
 * counts (the samples are in the structured content), e.g. {@code postgres: public.users +2 ~1 -1}.
 */
final class DataDiffText {
    private DataDiffText() {}

    static String of(Map<?, ?> evidence) {
        String head = "since checkpoint '" + evidence.get("checkpoint") + "'";
        if (Boolean.TRUE.equals(evidence.get("empty"))) {
            return head + ": no change in any service";
        }
        List<String> services = new ArrayList<>();
        for (Object o : (List<?>) evidence.get("services")) {
            Map<?, ?> service = (Map<?, ?>) o;
            List<String> parts = new ArrayList<>();
            for (Object p : (List<?>) service.get("changes")) {
                Map<?, ?> part = (Map<?, ?>) p;
                parts.add(part.get("name") + " +" + part.get("inserted") + " ~" + part.get("updated") + " -"
                        + part.get("deleted")
                        + (part.get("status").equals("changed") ? "" : " (" + part.get("status") + ")"));
            }
            Object unlisted = service.get("unlisted_changes");
            if (unlisted instanceof Number n && n.intValue() > 0) {
                parts.add(n + " more changed");
            }
            services.add(service.get("service") + ": " + (parts.isEmpty() ? "no change" : String.join(", ", parts)));
        }
        return head + " (+inserted ~updated -deleted): " + String.join("; ", services)
                + "; samples in the structured content";
    }
}
