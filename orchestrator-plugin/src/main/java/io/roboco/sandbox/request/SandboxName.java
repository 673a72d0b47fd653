package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/**
 * A sandbox's name, unique among its owner's undeleted sandboxes: 1-63 characters of letters, digits, {@code _ . -},
 * starting with a letter or digit. An agent's verb set is its sandbox named {@value #DEFAULT}; a sandbox created by
 * name takes any other ({@link #NAMED}).
 */
public record SandboxName(String value) {
    public static final String DEFAULT = "default";
    public static final NameShape SHAPE = NameShape.of(
            "sandbox name",
            "[A-Za-z0-9][A-Za-z0-9_.-]{0,62}",
            63,
            "1-63 characters of letters, digits, '_', '.', '-', starting with a letter or digit");
    /** The name of a sandbox created by name: any but {@value #DEFAULT}. */
    public static final NameShape NAMED = SHAPE.except(DEFAULT);
    /** The agent's verb set's name. */
    public static final SandboxName VERB_SET = new SandboxName(DEFAULT);

    /** @throws BadRequest naming the shape, when {@code value} is not of it */
    public SandboxName {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    /** The name given as argument {@code field} of a create: of the shape, and not {@value #DEFAULT}. */
    public static SandboxName parseNamed(String field, Object raw) {
        if (DEFAULT.equals(raw)) {
            throw new BadRequest("'" + field + "' must not be '" + DEFAULT
                    + "': that is the name of an agent's request_sandbox set");
        }
        if (!(raw instanceof String name) || !SHAPE.matches(name)) {
            throw new BadRequest(SHAPE.mustBe(field, raw));
        }
        return new SandboxName(name);
    }

    /**
     * How a sandbox of this name lives, as a property rather than a code path of its own: the verb set's ({@value
     * #DEFAULT}) grows with the services asked, its expiry slides with use, and the manager caches it; a sandbox of any
     * other name is created once with a fixed lifetime and answered again as it was made.
     */
    public boolean slides() {
        return DEFAULT.equals(value);
    }

    /**
     * The ask for a sandbox of this name with a lifetime of its own: only a named sandbox's is fixed at its create
     * ({@code ttl}); the verb set's slides.
     *
     * @throws BadRequest when this name's sandbox slides
     */
    public void requireFixedTtl(String field) {
        if (slides()) {
            throw new BadRequest("'" + field + "' applies to a named sandbox: add 'name' (your request_sandbox set"
                    + " lives as long as your project's sandbox_ttl_default and slides while you use it)");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
