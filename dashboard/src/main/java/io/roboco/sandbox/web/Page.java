package io.roboco.sandbox.web;

/**
 * What the layout needs: the title, the active nav entry, the session's CSRF token (null on the
 * sign-in page, which then shows no navigation) and a one-shot message.
 */
public record Page(String title, String nav, String csrf, String flash, boolean flashError) {

    public boolean signedIn() {
        return csrf != null;
    }

    public boolean active(String entry) {
        return entry.equals(nav);
    }

    static Page of(String title, String nav, Sessions.Session session) {
        Sessions.Flash flash = session.takeFlash();
        return new Page(
                title, nav, session.csrf(), flash == null ? null : flash.message(), flash != null && flash.error());
    }

    Page withMessage(String message, boolean error) {
        return new Page(title, nav, csrf, message, error);
    }
}
