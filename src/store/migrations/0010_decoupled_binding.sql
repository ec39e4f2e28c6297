-- Under mutual TLS a decoupled session is polled with the certificate it was started with.
ALTER TABLE decoupled_sessions ADD COLUMN cert_thumbprint text;
