use cuprite_testkit::Test;

pub fn tests() -> Vec<Test> {
    vec![]
}
