def test_get_token_with_access_token(api):
    response = api.get("/token")
    assert response.status_code == 200
    assert response.json()["data"]["organization"]["id"] == api.token.organization_id
