package io.roboco.sandbox.store;

import io.roboco.sandbox.settings.SettingsStoreException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One JDBC connection shared by every thread, one transaction at a time. A settings store sees a few
 * small statements per verb call, so serializing them costs little and makes read-then-write upserts
 * race-free on every database. A connection that breaks is dropped and reopened by the next call.
 */
final class SingleConnection implements AutoCloseable {
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private final DatabaseUrl url;
    private final String user;
    private final String password;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection;
    private boolean closed;

    SingleConnection(DatabaseUrl url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    String where() {
        return url.redacted();
    }

    DatabaseUrl.Kind kind() {
        return url.kind();
    }

    /** Runs {@code work} in one transaction: committed when it returns, rolled back when it throws. */
    <T> T transaction(String what, Work<T> work) {
        lock.lock();
        try {
            if (closed) {
                throw new SettingsStoreException("settings store " + url.redacted() + " is closed; cannot " + what);
            }
            Connection c = connection();
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException e) {
                rollbackAfterFailure(c);
                throw new SettingsStoreException(
                        "settings store could not " + what + " on " + url.redacted() + ": " + e.getMessage()
                                + " (SQLState " + e.getSQLState() + ")",
                        e);
            } catch (RuntimeException e) {
                rollbackAfterFailure(c);
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    private Connection connection() {
        if (connection == null) {
            connection = open();
        }
        return connection;
    }

    private Connection open() {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        if (url.kind() == DatabaseUrl.Kind.POSTGRES) {
            // Defaults only: parameters in the URL win.
            props.setProperty("ApplicationName", "roboco-sandbox");
            props.setProperty("connectTimeout", "10");
            props.setProperty("socketTimeout", "60");
        }
        try {
            Connection c = DriverManager.getConnection(url.url(), props);
            c.setAutoCommit(false);
            return c;
        } catch (SQLException e) {
            throw new SettingsStoreException(
                    "cannot open the settings database " + url.redacted() + " as user '" + user + "': " + e.getMessage()
                            + ". " + hint(e),
                    e);
        }
    }

    private String hint(SQLException e) {
        String message = String.valueOf(e.getMessage());
        if (url.kind() == DatabaseUrl.Kind.H2) {
            if (message.contains("already in use")) {
                return "Another process (a second server?) has this state directory open; stop it, or give this "
                        + "server its own ROBOCO_SANDBOX_STATE_DIR.";
            }
            return "Check that the state directory exists and is writable by this user.";
        }
        return "Check that PostgreSQL is running and reachable at that host and port, that the database exists, "
                + "and that the user and password are right.";
    }

    private void rollbackAfterFailure(Connection c) {
        try {
            c.rollback();
            if (c.isValid(2)) {
                return;
            }
        } catch (SQLException ignored) {
            // the connection is broken; drop it below
        }
        closeQuietly(c);
        connection = null;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (connection != null) {
                closeQuietly(connection);
                connection = null;
            }
        } finally {
            lock.unlock();
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing more to do with a connection we are discarding
        }
    }
}
