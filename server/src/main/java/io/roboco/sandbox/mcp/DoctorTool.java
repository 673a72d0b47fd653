package io.roboco.sandbox.mcp;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** The operator's {@code doctor}: the checks of {@code GET /api/doctor} (each ok / warn / fail with its fix), as that route answers them. */
final class DoctorTool {
    private final Supplier<Map<String, Object>> doctor;

    DoctorTool(Supplier<Map<String, Object>> doctor) {
        this.doctor = doctor;
    }

    List<ToolSpec> specs() {
        return List.of(new ToolSpec(
                "doctor",
                "Health checks",
                "Operator: the server's health checks with fixes (Docker, images, store, state dir, tokens, flag, pool, capacity,"
                        + " janitor, TTLs and quotas), as GET /api/doctor answers them.",
                McpTools.noArguments(),
                true,
                false,
                true,
                ToolSpec.Audience.OPERATOR,
                ToolSpec.Scope.CALLER,
                this::run,
                null));
    }

    @SuppressWarnings("unchecked")
    private ToolResult run(ToolCall call) {
        Map<String, Object> report = doctor.get();
        StringBuilder text = new StringBuilder();
        if (report.get("checks") instanceof List<?> checks) {
            long fail = checks.stream()
                    .filter(c -> "fail".equals(((Map<String, Object>) c).get("status")))
                    .count();
            long warn = checks.stream()
                    .filter(c -> "warn".equals(((Map<String, Object>) c).get("status")))
                    .count();
            text.append(checks.size())
                    .append(" checks: ")
                    .append(fail)
                    .append(" fail, ")
                    .append(warn)
                    .append(" warn");
            for (Object c : checks) {
                Map<String, Object> check = (Map<String, Object>) c;
                if (!"ok".equals(check.get("status"))) {
                    text.append('\n')
                            .append(check.get("status"))
                            .append(' ')
                            .append(check.get("name"))
                            .append(": ")
                            .append(check.get("detail"))
                            .append(check.get("fix") == null ? "" : " (fix: " + check.get("fix") + ")");
                }
            }
        }
        return ToolResult.ok(report, text.length() == 0 ? "doctor ran" : text.toString());
    }
}
