package io.roboco.sandbox.mongocompat.auth;

import java.util.Objects;

/** One role a user holds, on one database: {@code {role: "readWrite", db: "sandbox_x"}}. */
public record RoleGrant(String role, String db) {
    public RoleGrant {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(db, "db");
    }

    @Override
    public String toString() {
        return role + "@" + db;
    }
}
