package io.roboco.sandbox.web;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.security.RouteRole;
import java.util.Set;

/**
 * Runs before every matched route outside {@code /api/}: reads the route's declared
 * {@link Access}, finds the session for {@link Access#ADMIN} routes, and checks the CSRF token of
 * every request that is not a GET. Refusals are thrown as {@link Denied} before the handler runs.
 */
final class WebGate {
    static final String SESSION_ATTRIBUTE = "roboco.session";
    static final String CSRF_FIELD = "csrf";

    private final Sessions sessions;

    WebGate(Sessions sessions) {
        this.sessions = sessions;
    }

    void check(Context ctx) {
        if (ctx.path().startsWith("/api/")) {
            return; // bearer-token routes; TokenAuth decides
        }
        Set<RouteRole> roles = ctx.routeRoles();
        if (roles.contains(Access.ANYONE)) {
            return;
        }
        if (!roles.contains(Access.ADMIN)) {
            throw new Denied(Denied.Kind.UNDECLARED, "This route declares no access rule, so it is refused.");
        }
        boolean read = ctx.method() == HandlerType.GET || ctx.method() == HandlerType.HEAD;
        Sessions.Session session = sessions.find(ctx.cookie(Cookies.SESSION)).orElse(null);
        if (session == null) {
            throw new Denied(
                    read ? Denied.Kind.SIGN_IN : Denied.Kind.UNAUTHENTICATED,
                    "Your session is missing or has ended. Sign in with the admin token.");
        }
        if (!read && !session.csrfMatches(ctx.formParam(CSRF_FIELD))) {
            throw new Denied(
                    Denied.Kind.CSRF,
                    "The form's security token is missing or does not match your session, "
                            + "so nothing was changed. Reload the page and try again.");
        }
        ctx.attribute(SESSION_ATTRIBUTE, session);
    }

    static Sessions.Session session(Context ctx) {
        Sessions.Session session = ctx.attribute(SESSION_ATTRIBUTE);
        if (session == null) {
            throw new IllegalStateException(
                    "admin page reached without a session; is the route declared Access.ADMIN?");
        }
        return session;
    }
}
