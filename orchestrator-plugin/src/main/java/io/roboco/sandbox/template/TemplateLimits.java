package io.roboco.sandbox.template;

/**
 * How much of the state directory one project's templates may take: at most {@code perProject} templates, at most
 * {@code maxBytes} per dump and {@code projectBytes} for all of a project's dumps together. A save over any of them is
 * refused and writes nothing (a dump that grows past its budget while it is written is cut off and deleted).
 *
 * @param perProject   templates per project ({@code ROBOCO_SANDBOX_TEMPLATES_PER_PROJECT}, default {@value #DEFAULT_PER_PROJECT})
 * @param maxBytes     bytes per template dump ({@code ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE}, default 256m)
 * @param projectBytes bytes of all one project's dumps ({@code ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE}, default 1g)
 */
public record TemplateLimits(int perProject, long maxBytes, long projectBytes) {
    public static final int DEFAULT_PER_PROJECT = 20;
    public static final long DEFAULT_MAX_BYTES = 256L << 20;
    public static final long DEFAULT_PROJECT_BYTES = 1L << 30;

    public TemplateLimits {
        if (perProject < 1) {
            throw new IllegalArgumentException("templates per project must be at least 1, got " + perProject);
        }
        if (maxBytes < 1 || projectBytes < 1) {
            throw new IllegalArgumentException("template size caps must be at least 1 byte");
        }
    }

    public static TemplateLimits defaults() {
        return new TemplateLimits(DEFAULT_PER_PROJECT, DEFAULT_MAX_BYTES, DEFAULT_PROJECT_BYTES);
    }
}
