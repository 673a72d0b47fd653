package io.roboco.sandbox.server.http;

import io.javalin.http.Context;
import io.roboco.sandbox.settings.SandboxRecord;
import java.util.regex.Pattern;

/**
 * What a client token may do: create, list, show, extend and delete its owner's sandboxes, nothing else. The auth
 * check admits a client token only to these routes ({@link #admits}) and marks the request with its owner; the
 * sandbox routes then keep it to that owner's records ({@link #requireOwn}): another owner's sandbox is 403.
 */
final class ClientScope {
    private static final String OWNER = "roboco.client.owner";
    private static final Pattern ONE = Pattern.compile("/api/sandboxes/[^/]+");
    private static final Pattern EXTEND = Pattern.compile("/api/sandboxes/[^/]+/extend");

    private ClientScope() {}

    /** Whether a client token may call {@code method path} at all. */
    static boolean admits(String method, String path) {
        return switch (method) {
            case "GET" -> path.equals("/api/sandboxes") || ONE.matcher(path).matches();
            case "POST" -> path.equals("/api/sandboxes") || EXTEND.matcher(path).matches();
            case "DELETE" -> ONE.matcher(path).matches();
            default -> false;
        };
    }

    static void mark(Context ctx, String owner) {
        ctx.attribute(OWNER, owner);
    }

    /** The client token's owner, or null for the admin token. */
    static String owner(Context ctx) {
        return ctx.attribute(OWNER);
    }

    /** 403 unless the caller is the admin or the record's owner's client. */
    static void requireOwn(Context ctx, SandboxRecord record) {
        requireOwner(ctx, record.owner(), "sandbox " + record.id());
    }

    /** 403 unless the caller is the admin or {@code owner}'s client. */
    static void requireOwner(Context ctx, String owner, String what) {
        String client = owner(ctx);
        if (client != null && !client.equals(owner)) {
            throw new ApiError(
                    403, "forbidden", "this client token is " + client + "'s; " + what + " belongs to another owner");
        }
    }
}
