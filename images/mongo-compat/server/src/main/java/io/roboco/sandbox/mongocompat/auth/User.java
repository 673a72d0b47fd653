package io.roboco.sandbox.mongocompat.auth;

import io.roboco.sandbox.mongocompat.scram.ScramCredential;
import io.roboco.sandbox.mongocompat.scram.ScramMechanism;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A user of one database ({@code name@db}, what drivers call the user and its {@code authSource}), its roles
 * and one SCRAM credential per enabled mechanism. Holds no password.
 */
public record User(UUID id, String name, String db, List<RoleGrant> roles, Map<ScramMechanism, ScramCredential> credentials,
                   Map<String, Object> customData) {
    public User {
        roles = List.copyOf(roles);
        credentials = Map.copyOf(credentials);
        customData = customData == null ? null : Map.copyOf(customData);
    }

    /** {@code db.name}, mongod's {@code _id} of the user document. */
    public String key() {
        return key(db, name);
    }

    public static String key(String db, String name) {
        return db + "." + name;
    }

    /** Whether one of the user's roles allows {@code action} on {@code db}. */
    public boolean may(Action action, String db) {
        for (RoleGrant grant : roles) {
            if (BuiltinRole.of(grant).map(r -> r.allows(grant.db(), action, db)).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    /** Whether one of the user's roles allows {@code action} on every database. */
    public boolean mayEverywhere(Action action) {
        return roles.stream().anyMatch(g -> BuiltinRole.of(g).map(r -> r.allowsEverywhere(action)).orElse(false));
    }

    /** Whether the user holds any role on {@code db} or may read every database: what {@code listDatabases} shows it. */
    public boolean sees(String db) {
        return mayEverywhere(Action.READ) || roles.stream().anyMatch(g -> g.db().equals(db));
    }

    public boolean isRoot() {
        return may(Action.CLUSTER, BuiltinRole.ADMIN_DB);
    }

    @Override
    public String toString() {
        return "User[" + name + "@" + db + ", roles=" + roles + ", mechanisms=" + credentials.keySet() + "]";
    }
}
