package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.Printable;
import java.util.regex.Pattern;

/** Shapes of the names callers send. Shape errors are {@link BadRequest}s; meaning is checked later. */
public final class Names {
    /** Agent slugs: lower-case letters, digits, {@code _ . -}; 1-63 characters, starting with a letter or digit. */
    public static final Pattern AGENT_SLUG = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,62}");
    /** Service (engine) names: lower-case, starting with a letter; 1-32 characters. */
    public static final Pattern SERVICE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    /** Project ids: letters, digits, {@code _ . -}; 1-64 characters, starting with a letter or digit. */
    public static final Pattern PROJECT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    /**
     * Operator-side owners of sandboxes (CI jobs): {@value #JOB_PREFIX} and a name of an agent slug's shape, e.g.
     * {@code job:ci-42}. No agent slug can take this form, so an agent and a CI job never share an owner.
     */
    public static final String JOB_PREFIX = "job:";

    public static final Pattern JOB_OWNER = Pattern.compile("job:[a-z0-9][a-z0-9_.-]{0,62}");
    /** Roles: lower-case words, 1-32 characters. */
    public static final Pattern ROLE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

    private Names() {}

    public static String requireAgentSlug(String slug) {
        return require(AGENT_SLUG, slug, "agent slug", "[a-z0-9][a-z0-9_.-]{0,62}");
    }

    /** A sandbox owner: an agent slug, or a CI job's {@code job:<name>}. */
    public static String requireOwner(String owner) {
        if (owner != null && JOB_OWNER.matcher(owner).matches()) {
            return owner;
        }
        return require(
                AGENT_SLUG, owner, "owner", "an agent slug [a-z0-9][a-z0-9_.-]{0,62}, or job:<name> for a CI job");
    }

    /** Whether {@code owner} is an operator-side owner ({@code job:<name>}) rather than an agent. */
    public static boolean isJobOwner(String owner) {
        return owner != null && JOB_OWNER.matcher(owner).matches();
    }

    public static String requireService(String service) {
        return require(SERVICE, service, "service name", "[a-z][a-z0-9_-]{0,31}");
    }

    public static String requireProjectId(String id) {
        return require(PROJECT_ID, id, "project id", "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    }

    private static String require(Pattern pattern, String value, String what, String shape) {
        if (value == null || !pattern.matcher(value).matches()) {
            throw new BadRequest(what + " '" + printable(value) + "' is malformed; expected " + shape);
        }
        return value;
    }

    /** Echoes caller input safely; see {@link io.roboco.sandbox.engine.Printable}. */
    public static String printable(String s) {
        return Printable.of(s);
    }
}
