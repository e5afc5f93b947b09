//! OBJ output parsed back by lines.
