package io.roboco.sandbox.web;

import io.javalin.security.RouteRole;

/**
 * Who may use a route outside {@code /api/} (those take bearer tokens). Every such route declares
 * one; a route that declares none is refused (fail closed) by {@link WebGate}.
 */
public enum Access implements RouteRole {
    /** No session needed: {@code /healthz}, {@code /login}, {@code /static/*}. */
    ANYONE,
    /** A signed-in admin session; non-GET requests also need the session's CSRF token. */
    ADMIN
}
