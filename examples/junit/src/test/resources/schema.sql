CREATE TABLE orders (id SERIAL PRIMARY KEY, customer TEXT NOT NULL, total_cents INT NOT NULL);
INSERT INTO orders (customer, total_cents) VALUES ('seeded', 100);
