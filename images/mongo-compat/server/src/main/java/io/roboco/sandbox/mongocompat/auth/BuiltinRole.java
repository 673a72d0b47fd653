package io.roboco.sandbox.mongocompat.auth;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * mongod's built-in database and "any database" roles, reduced to the {@link Action}s they grant. The
 * "any database" roles and {@code root} exist only on {@code admin}, as in mongod.
 */
public enum BuiltinRole {
    READ("read", false, EnumSet.of(Action.READ)),
    READ_WRITE("readWrite", false, EnumSet.of(Action.READ, Action.WRITE)),
    DB_ADMIN("dbAdmin", false, EnumSet.of(Action.DB_ADMIN)),
    USER_ADMIN("userAdmin", false, EnumSet.of(Action.USER_ADMIN)),
    DB_OWNER("dbOwner", false, EnumSet.of(Action.READ, Action.WRITE, Action.DB_ADMIN, Action.USER_ADMIN)),
    READ_ANY_DATABASE("readAnyDatabase", true, EnumSet.of(Action.READ)),
    READ_WRITE_ANY_DATABASE("readWriteAnyDatabase", true, EnumSet.of(Action.READ, Action.WRITE)),
    DB_ADMIN_ANY_DATABASE("dbAdminAnyDatabase", true, EnumSet.of(Action.DB_ADMIN)),
    USER_ADMIN_ANY_DATABASE("userAdminAnyDatabase", true, EnumSet.of(Action.USER_ADMIN)),
    ROOT("root", true, EnumSet.allOf(Action.class));

    static final String ADMIN_DB = "admin";

    private final String roleName;
    private final boolean anyDatabase;
    private final Set<Action> actions;

    BuiltinRole(String roleName, boolean anyDatabase, Set<Action> actions) {
        this.roleName = roleName;
        this.anyDatabase = anyDatabase;
        this.actions = actions;
    }

    public String roleName() {
        return roleName;
    }

    /** The built-in role a grant names, if it exists on the grant's database (mongod: "Could not find role"). */
    public static Optional<BuiltinRole> of(RoleGrant grant) {
        for (BuiltinRole r : values()) {
            if (r.roleName.equals(grant.role()) && (!r.anyDatabase || grant.db().equals(ADMIN_DB))) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Whether this role grants {@code action} on every database (the "any database" roles and root). */
    boolean allowsEverywhere(Action action) {
        return anyDatabase && actions.contains(action);
    }

    /** Whether holding this role on {@code grantDb} allows {@code action} on {@code db}. */
    boolean allows(String grantDb, Action action, String db) {
        return actions.contains(action) && (anyDatabase || grantDb.equals(db));
    }
}
