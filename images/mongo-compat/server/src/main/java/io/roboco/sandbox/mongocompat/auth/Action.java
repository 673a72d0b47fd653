package io.roboco.sandbox.mongocompat.auth;

/** The classes of work a role can grant on a database (or, for the "any database" roles and root, on every one). */
public enum Action {
    /** find, count, distinct, aggregate, list collections and indexes, stats, getMore on one's own cursors. */
    READ,
    /** insert, update, delete, findAndModify, create / drop collections, create / drop indexes, $out / $merge targets. */
    WRITE,
    /** dropDatabase, validate. */
    DB_ADMIN,
    /** createUser, updateUser, dropUser, dropAllUsersFromDatabase, usersInfo of others. */
    USER_ADMIN,
    /** Server-wide: serverStatus, hostInfo, getLog, getCmdLineOpts, currentOp. Only {@code root} has it. */
    CLUSTER
}
