package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

/**
 * Sign-in with the admin token and sign-out. The sign-in form has no session yet, so it carries a
 * double-submit token (cookie + hidden field) against login CSRF. A successful sign-in always
 * starts a new session id.
 */
final class SignInPages {
    private static final String SIGN_IN_PATH = "/login";

    private final Sessions sessions;
    private final Templates templates;
    private final byte[] adminDigest;

    SignInPages(Sessions sessions, Templates templates, String adminToken) {
        this.sessions = sessions;
        this.templates = templates;
        this.adminDigest = Sessions.digest(adminToken);
    }

    void register(Javalin app) {
        app.get("/login", this::form, Access.ANYONE);
        app.post("/login", this::signIn, Access.ANYONE);
        app.post("/logout", this::signOut, Access.ADMIN);
    }

    private void form(Context ctx) {
        if (sessions.find(ctx.cookie(Cookies.SESSION)).isPresent()) {
            ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
            return;
        }
        show(ctx, 200, null);
    }

    private void signIn(Context ctx) {
        String cookie = ctx.cookie(Cookies.SIGN_IN);
        String field = ctx.formParam(WebGate.CSRF_FIELD);
        if (cookie == null
                || field == null
                || !MessageDigest.isEqual(Sessions.digest(cookie), Sessions.digest(field))) {
            show(ctx, 403, "The sign-in form expired or did not come from this page. Try again.");
            return;
        }
        String token = ctx.formParam("token");
        if (token == null || token.isBlank() || !MessageDigest.isEqual(Sessions.digest(token.trim()), adminDigest)) {
            show(
                    ctx,
                    401,
                    "That is not the admin token. It is ROBOCO_SANDBOX_ADMIN_TOKEN, or the admin-token file "
                            + "in the state directory.");
            return;
        }
        sessions.end(ctx.cookie(Cookies.SESSION));
        Map.Entry<String, Sessions.Session> created = sessions.create();
        Cookies.clear(ctx, Cookies.SIGN_IN, SIGN_IN_PATH);
        Cookies.set(ctx, Cookies.SESSION, created.getKey(), "/", Sessions.MAX_AGE.toSeconds());
        ctx.redirect("/sandboxes", HttpStatus.SEE_OTHER);
    }

    private void signOut(Context ctx) {
        sessions.end(ctx.cookie(Cookies.SESSION));
        Cookies.clear(ctx, Cookies.SESSION, "/");
        ctx.redirect(SIGN_IN_PATH, HttpStatus.SEE_OTHER);
    }

    private void show(Context ctx, int status, String error) {
        String formToken = Sessions.randomToken();
        Cookies.set(ctx, Cookies.SIGN_IN, formToken, SIGN_IN_PATH, 3600);
        Map<String, Object> params = new HashMap<>();
        params.put("page", new Page("Sign in", "", null, error, error != null));
        params.put("formToken", formToken);
        templates.render(ctx, status, "login.jte", params);
    }
}
