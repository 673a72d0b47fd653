package io.roboco.sandbox.web;

/** A page request the gate refuses before its handler runs, so nothing it would change is changed. */
final class Denied extends RuntimeException {
    enum Kind {
        /** GET without a session: redirect to the sign-in page. */
        SIGN_IN(303, "Sign in first"),
        /** Anything else without a session. */
        UNAUTHENTICATED(401, "Sign in first"),
        /** A state-changing request without this session's CSRF token (e.g. a cross-site form). */
        CSRF(403, "Request refused"),
        /** A route that declares no {@link Access}: refused until it does. */
        UNDECLARED(403, "Not available");

        final int status;
        final String title;

        Kind(int status, String title) {
            this.status = status;
            this.title = title;
        }
    }

    private final Kind kind;

    Denied(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    Kind kind() {
        return kind;
    }
}
