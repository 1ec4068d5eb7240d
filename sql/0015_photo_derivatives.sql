-- Derivatives of stored photos (thumbnails, domain/thumbnails.py): one per photo and
-- transform, kept in the object store under the sha1 of their own bytes like any object.
-- A derivative counts as referenced while its photo is (catalog/media.py), so media
-- cleanup removes it with its photo.
CREATE TABLE photo_derivatives (
    photo_key TEXT NOT NULL,
    transform TEXT NOT NULL,
    derivative_key TEXT NOT NULL,
    byte_size INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (photo_key, transform)
);
CREATE INDEX ix_photo_derivatives_derivative ON photo_derivatives (derivative_key);
