fn main() {
    let (level, _) = levelgeom_wad::generate::routes_level().unwrap();
    std::fs::write(std::env::args().nth(1).unwrap(), level.to_bytes().unwrap()).unwrap();
}
