package io.roboco.sandbox.settings;

import java.util.Objects;

/**
 * An agent as the orchestrator registered it: its spawn role and project, and its active task
 * ({@code null} when it has none).
 */
public record Agent(String slug, String role, String project, String task) {
    public Agent {
        Objects.requireNonNull(slug, "slug");
        Objects.requireNonNull(role, "role");
    }

    public Agent withTask(String project, String task) {
        return new Agent(slug, role, project, task);
    }

    public boolean hasActiveTask() {
        return task != null && !task.isBlank() && project != null && !project.isBlank();
    }
}
