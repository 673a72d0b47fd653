package io.roboco.sandbox.verbs;

import java.util.regex.Pattern;

/** Shapes of the names callers send. Shape errors are {@link BadRequest}s; meaning is checked later. */
public final class Names {
    /** Agent slugs: lower-case letters, digits, {@code _ . -}; 1-63 characters, starting with a letter or digit. */
    public static final Pattern AGENT_SLUG = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,62}");
    /** Service (engine) names: lower-case, starting with a letter; 1-32 characters. */
    public static final Pattern SERVICE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    /** Project ids: letters, digits, {@code _ . -}; 1-64 characters, starting with a letter or digit. */
    public static final Pattern PROJECT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    /** Roles: lower-case words, 1-32 characters. */
    public static final Pattern ROLE = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

    private Names() {
    }

    public static String requireAgentSlug(String slug) {
        return require(AGENT_SLUG, slug, "agent slug", "[a-z0-9][a-z0-9_.-]{0,62}");
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

    /** Echoes caller input safely: at most 64 characters, control and non-ASCII characters escaped. */
    public static String printable(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return s.length() > 64 ? sb + "…" : sb.toString();
    }
}
