fn main() {
    cuprite_testkit::run(vec![]);
}
