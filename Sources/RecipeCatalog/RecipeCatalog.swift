// The recipe domain on top of ObjectGraph; see CatalogModel.swift.
